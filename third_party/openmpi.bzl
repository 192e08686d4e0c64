"""Repository rule wrapping the system Open MPI found through `mpicc`.

Asks the wrapper compiler for its include and library directories (so the
multiarch path is not hard-coded) and exposes them as @openmpi//:mpi.
"""

def _words(ctx, args):
    result = ctx.execute(["mpicc"] + args)
    if result.return_code != 0:
        fail("mpicc %s failed (is Debian's libopenmpi-dev installed? run `make deps`): %s" %
             (" ".join(args), result.stderr))
    return result.stdout.strip().split(" ")

def _openmpi_impl(ctx):
    incdirs = _words(ctx, ["--showme:incdirs"])
    libdirs = _words(ctx, ["--showme:libdirs"])
    for i, d in enumerate(incdirs):
        ctx.symlink(d, "include%d" % i)
    linkopts = ["-L" + d for d in libdirs] + ["-Wl,-rpath," + d for d in libdirs] + ["-lmpi"]
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

exports_files(glob(["include*/mpi.h"]))

cc_library(
    name = "mpi",
    hdrs = glob(["include*/**/*.h"]),
    # The deprecated C++ bindings would be pulled into every C++ file.
    defines = ["OMPI_SKIP_MPICXX=1", "MPICH_SKIP_MPICXX=1"],
    includes = {includes},
    linkopts = {linkopts},
)
""".format(
        includes = repr(["include%d" % i for i in range(len(incdirs))]),
        linkopts = repr(linkopts),
    ))

openmpi_repository = repository_rule(
    implementation = _openmpi_impl,
    local = True,
)
