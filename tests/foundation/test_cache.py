import multiprocessing

from vlmscope.cache import ResponseCache
from vlmscope.messages import Response, Status


def test_ok_response_is_final_and_failed_one_is_replaced(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put_many(
        {"a": Response("first"), "b": Response("", Status.REQUEST_FAILED, "x")}, backend="m"
    )
    cache.put_many({"a": Response("second"), "b": Response("answer")}, backend="m")
    got = cache.get_many(["a", "b", "missing"])
    assert got["a"].text == "first"
    assert got["b"].text == "answer" and got["b"].ok
    assert "missing" not in got
    assert cache.count() == 2


def _writer(path: str, worker: int) -> None:
    cache = ResponseCache(path)
    for i in range(50):
        # every worker writes the shared keys too: still one row each
        cache.put_many(
            {f"shared-{i}": Response(f"w{worker}"), f"own-{worker}-{i}": Response("x")}, backend="m"
        )
    cache.close()


def test_several_processes_write_one_cache(tmp_path):
    path = str(tmp_path / "c.sqlite")
    ResponseCache(path).close()
    procs = [
        multiprocessing.get_context("spawn").Process(target=_writer, args=(path, w))
        for w in range(3)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    cache = ResponseCache(path)
    assert cache.count() == 50 + 3 * 50
    assert len(set(cache.keys())) == cache.count()


def _open_and_write(path: str, worker: int, start) -> None:
    start.wait()
    cache = ResponseCache(path)  # every process opens the fresh file at the same moment
    cache.put_many({f"k{worker}": Response("x")}, backend="m")
    cache.close()


def test_processes_opening_a_new_cache_together(tmp_path):
    context = multiprocessing.get_context("fork")
    for attempt in range(10):
        path = str(tmp_path / f"new-{attempt}.sqlite")
        start = context.Event()
        procs = [context.Process(target=_open_and_write, args=(path, w, start)) for w in range(8)]
        for p in procs:
            p.start()
        start.set()
        for p in procs:
            p.join(60)
            assert p.exitcode == 0
        assert ResponseCache(path).count() == 8
