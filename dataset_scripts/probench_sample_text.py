"""The questions and reference (`gpt`) answers of the ProBench sample, by row name.

`make_probench_sample.py` draws the images these talk about. Each first question opens with the
`<|img|>` placeholder, as upstream. The answers differ on purpose in length and markdown: `#`
headers, `1.` and `-` lists, `**bold**`, code blocks, tables and plain prose.
"""

from __future__ import annotations

QUESTIONS: dict[str, tuple[str, ...]] = {
    "sr-dashboard": (
        "<|img|>I want you to write R Shiny code that reproduces this dashboard: the sidebar "
        "menu, the region dropdown and the quarterly bar chart with its values. Can you do that?",
    ),
    "sr-line": (
        "<|img|>The plotted points lie on a straight line. Find its slope and intercept, and "
        "predict y at x = 10.",
    ),
    "sr-house": (
        "<|img|>How many windows does the house have, and where is the sun relative to it?",
    ),
    "sr-receipt": (
        "<|img|>Extract every line item of this receipt (name, quantity, price), check that the "
        "subtotal and the 8% tax are consistent, and give the total. I am reconciling my "
        "expenses, so be exact and say if anything does not add up.",
    ),
    "sr-artwork": (
        "<|img|>Write a poem inspired by this artwork. It must have a title, three stanzas of "
        "exactly four rhyming lines each, mention every colour you see, and end on an image of "
        "time.",
    ),
    "mr-flowchart": (
        "<|img|>What does this flowchart do?",
        "Write it as Python code.",
    ),
    "mr-aerial": (
        "<|img|>Describe the land use you can see in this aerial image.",
        "If the river rose by two metres, which area would flood first?",
        "Where would you build a new bridge, and why?",
    ),
    "mr-rainfall": (
        "<|img|>\nWhich month in this chart had the most rainfall?",
        "What is the mean monthly rainfall over the six months?",
        "Is there a trend?",
        "Write a short report section with a table of the values.",
    ),
    "mr-maze": (
        "<|img|>Describe this maze: its size, where S and G are, and where the walls are.",
        "What is the shortest path from S to G? List the cells as (row, column), starting at "
        "(0, 0).",
        "How many moves is that?",
        "If the wall between (2, 1) and (2, 2) were removed, would the path get shorter?",
        "Write a Python function that finds the shortest path with breadth-first search.",
        "What is the time complexity of your function on an n x n maze?",
        "Summarise our conversation in two sentences.",
    ),
    "ml-fruit": (
        "<|img|>Quantas frutas há na imagem e de que tipos? Sugira uma receita simples que use "
        "todas elas.",
    ),
    "ml-plan": (
        "<|img|>Décris ce plan d'appartement et propose un meilleur agencement pour une famille "
        "de quatre personnes.",
    ),
    "ml-clock": ("<|img|>この時計は何時を示していますか？",),
}

_SHINY = """## Overview

The screenshot shows a dashboard with a title bar, a sidebar with three menu items (Overview, \
Regions, Reports), a region dropdown set to "North" and a bar chart of sales per quarter \
(Q1 40, Q2 65, Q3 55, Q4 80).

## Code

```r
library(shiny)
library(ggplot2)

sales <- data.frame(quarter = c("Q1", "Q2", "Q3", "Q4"), value = c(40, 65, 55, 80))

ui <- fluidPage(
  titlePanel("Sales dashboard"),
  sidebarLayout(
    sidebarPanel(radioButtons("page", NULL, c("Overview", "Regions", "Reports")), width = 2),
    mainPanel(
      selectInput("region", "Region:", c("North", "South", "East", "West")),
      plotOutput("sales")
    )
  )
)

server <- function(input, output) {
  output$sales <- renderPlot({
    ggplot(sales, aes(quarter, value)) +
      geom_col(fill = "steelblue") +
      geom_text(aes(label = value), vjust = -0.5)
  })
}

shinyApp(ui, server)
```

## Notes

- The values are copied from the chart; replace `sales` with your own data frame.
- The dropdown does not filter yet: subset `sales` by `input$region` inside `renderPlot`.
- Start it in RStudio with **Run App**."""

_BFS = """```python
from collections import deque


def shortest_path(n, walls, start, goal):
    \"\"\"Breadth-first search on an n x n grid; `walls` holds frozensets of blocked cell pairs.\"\"\"
    previous = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            break
        r, c = cell
        for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            inside = 0 <= nxt[0] < n and 0 <= nxt[1] < n
            if inside and nxt not in previous and frozenset((cell, nxt)) not in walls:
                previous[nxt] = cell
                queue.append(nxt)
    if goal not in previous:
        return None
    path = [goal]
    while previous[path[-1]] is not None:
        path.append(previous[path[-1]])
    return path[::-1]
```

Call it as `shortest_path(4, walls, (0, 0), (3, 3))` with the five wall segments of the maze."""

ANSWERS: dict[str, tuple[str, ...]] = {
    "sr-dashboard": (_SHINY,),
    "sr-line": (
        "The four points are (1, 3), (2, 5), (3, 7) and (4, 9).\n\n"
        "1. Slope: from one point to the next x grows by 1 and y by 2, so the slope is "
        "2 / 1 = **2**.\n"
        "2. Intercept: y = 2x + b through (1, 3) gives 3 = 2 + b, so **b = 1**.\n"
        "3. Check: x = 4 gives 2 * 4 + 1 = 9, as plotted.\n"
        "4. Prediction: at x = 10, y = 2 * 10 + 1 = **21**.\n\n"
        "The line is **y = 2x + 1**.",
    ),
    "sr-house": (
        "The house has two windows, one on each side of the door. The sun is in the upper left "
        "corner, above and to the left of the house.",
    ),
    "sr-receipt": (
        "Line items:\n\n"
        "- **Espresso**: quantity 2, 5.00 in total (2.50 each)\n"
        "- **Croissant**: quantity 1, 3.20\n"
        '- **Orange juice** (printed "Orange jc"): quantity 1, 4.50\n\n'
        "Check: 5.00 + 3.20 + 4.50 = 12.70, which matches the subtotal. 8% of 12.70 is 1.016, "
        "rounded to 1.02, and 12.70 + 1.02 = 13.72. Everything adds up.\n\n"
        "**Total: 13.72**",
    ),
    "sr-artwork": (
        "# Orbit of Three\n\n"
        "Three rings of amber circle round\n"
        "a yellow sun that makes no sound;\n"
        "the midnight blue they float upon\n"
        "keeps every colour when it's gone.\n\n"
        "Two triangles of magenta flame\n"
        "lean in to give the dark a name,\n"
        "while teal, the quiet one, stands high\n"
        "and points its corner at the sky.\n\n"
        "So shape by shape the canvas turns,\n"
        "a small cold night where something burns;\n"
        "and if you stare, the rings unwind:\n"
        "a clock of light that leaves no time behind.",
    ),
    "mr-flowchart": (
        "It is a simple thermostat for a fan. The program starts, reads the temperature from a "
        "sensor and checks whether it is above 30 degrees. If it is, the fan is switched on; "
        "otherwise the fan is switched off. Either way the flow then ends.",
        "Here is a direct translation:\n\n"
        "```python\n"
        "def control_fan(read_temperature, fan):\n"
        "    if read_temperature() > 30:\n"
        "        fan.on()\n"
        "    else:\n"
        "        fan.off()\n"
        "```\n\n"
        "Call it in a loop, for example once a minute, to keep the room regulated.",
    ),
    "mr-aerial": (
        "- **Farmland**: most of the image is a patchwork of green and yellow fields.\n"
        "- **River**: a blue river runs from the top left to a bend at the bottom right.\n"
        "- **Settlement**: a cluster of red-roofed buildings sits on the north bank.\n"
        "- **Roads**: two grey roads cross the area; one ends at the river next to the town.",
        "The low fields inside the river bend at the bottom right would flood first: they lie "
        "on the inside of the curve, right next to the water, with no road embankment between "
        "them and the river. The town on the north bank sits further from the channel.",
        "I would build it where the road from the north meets the river, next to the town:\n\n"
        "1. The road already leads there, so little new road is needed.\n"
        "2. The river is straight at that point, which keeps the span short.\n"
        "3. It links the town to the southern fields without touching the flood-prone bend.",
    ),
    "mr-rainfall": (
        "January, with 80 mm.",
        "The six values are 80, 65, 50, 40, 30 and 20 mm. Their sum is 285 mm, so the mean is "
        "285 / 6 = **47.5 mm**.",
        "Yes, a steady decline:\n\n"
        "- every month is drier than the one before;\n"
        "- rainfall falls by 60 mm from January to June, 12 mm per month on average;\n"
        "- the largest drops come first: 15 mm a month from January to March.",
        "Here is a section you can paste into the report.\n\n"
        "### Rainfall, January to June\n\n"
        "| Month | Rainfall (mm) |\n|---|---|\n| Jan | 80 |\n| Feb | 65 |\n| Mar | 50 |\n"
        "| Apr | 40 |\n| May | 30 |\n| Jun | 20 |\n\n"
        "Rainfall fell every month, from 80 mm in January to 20 mm in June (mean 47.5 mm). "
        "**The half-year ends markedly drier than it began.**",
    ),
    "mr-maze": (
        "## Layout\n\nIt is a **4 x 4** grid maze. **S** (start) is in the top-left cell and **G** (goal) in "
        "the bottom-right cell. The walls are:\n\n"
        "- a vertical wall between the second and third columns, from the top row down to the "
        "third row;\n"
        "- a horizontal wall under the third row, below the two right-hand columns.",
        "(0, 0) → (1, 0) → (2, 0) → (3, 0) → (3, 1) → (3, 2) → (3, 3). The vertical wall forces "
        "the path down to the bottom row before it can cross to the right.",
        "Six moves.",
        "No. Removing that wall lets you step from (2, 1) to (2, 2), but from there:\n\n"
        "1. down to (3, 2) is blocked by the horizontal wall;\n"
        "2. right to (2, 3) is a dead end, since the same wall lies under it;\n"
        "3. up leads away from G.\n\n"
        "So the shortest path still runs along the bottom row and stays at **6 moves**.",
        _BFS,
        "**O(n²)** time: each of the n² cells enters the queue at most once and has at most "
        "four neighbours to check. The `previous` map needs O(n²) memory as well.",
        "We read a 4 x 4 maze, found that the shortest path from S to G takes six moves along "
        "the bottom row, and saw that removing one inner wall does not shorten it. We then "
        "wrote a breadth-first search that finds such paths in O(n²) time.",
    ),
    "ml-fruit": (
        "Há **cinco frutas** na imagem: três maçãs vermelhas e duas bananas.\n\n"
        "Receita simples, salada de frutas:\n\n"
        "- corte as maçãs em cubos e as bananas em rodelas;\n"
        "- regue com suco de limão para não escurecerem;\n"
        "- junte uma colher de mel e misture bem;\n"
        "- sirva gelado.",
    ),
    "ml-plan": (
        "## Description\n\n"
        "Le plan montre un appartement de quatre pièces : une **cuisine** en haut à gauche, un "
        "**salon** en haut à droite, une **chambre** en bas à gauche et une **salle de bain** "
        "(SdB) en bas à droite.\n\n"
        "## Proposition\n\n"
        "1. Diviser le salon en deux pour créer une seconde chambre pour les enfants.\n"
        "2. Ouvrir la cuisine sur le reste du salon pour garder une pièce de vie.\n"
        "3. Ajouter des rangements entre la chambre et la salle de bain.\n\n"
        "Ainsi, les parents et les enfants ont chacun leur chambre, et la famille garde un "
        "espace commun autour de la cuisine.",
    ),
    "ml-clock": ("10時10分です。短針は10と11の間、長針は2を指しています。",),
}
