"""What the checkers of tests/mpi share: one line per check, "ok" or
"FAIL", and the exit status that says whether any failed.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from checks import check, status
"""

_failures = 0


def check(ok, message):
    global _failures
    print(("ok   " if ok else "FAIL ") + message)
    if not ok:
        _failures += 1


def status():
    return 1 if _failures else 0
