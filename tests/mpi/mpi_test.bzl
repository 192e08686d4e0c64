"""mpi_app_test: record an MPI test application and check its trace."""

def mpi_app_test(name, app, ranks, args = [], size = "small", **kwargs):
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//tests/mpi:run_app_test.sh"],
        args = [str(ranks), "$(rootpath %s)" % app] + args,
        data = [
            app,
            "//cmd/rp-cat",
            "//cmd/rp-record",
            "//tests/mpi:check_trace.py",
            "//tests/mpi:testenv.sh",
        ],
        **kwargs
    )
