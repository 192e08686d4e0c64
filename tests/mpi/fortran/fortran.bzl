"""MPI test programs built with Open MPI's compiler wrappers.

Bazel has no Fortran rules: these genrules run mpifort (and mpicc) on the
sources plus the expectation API (//tests/mpi:expect.c, and expect_f.f90 for
Fortran). The execroot is the genrule's working directory, so -I. finds
"tests/mpi/expect.h". Intermediate files (objects, .mod) go to a temporary
directory; the one output is the executable, named `name`.
"""

_EXPECT = ["//tests/mpi:expect.c", "//tests/mpi:expect.h"]

def _expect_object(tmp):
    return "mpicc -g -I. -c $(location //tests/mpi:expect.c) -o %s/expect.o" % tmp

def mpi_fortran_binary(name, src, fflags = [], **kwargs):
    """A Fortran MPI program (`use mpi` or mpif.h) using expect_f.f90."""
    native.genrule(
        name = name + "_build",
        testonly = True,
        srcs = [src, "expect_f.f90"] + _EXPECT,
        outs = [name],
        executable = True,
        cmd = " && ".join([
            "tmp=$$(mktemp -d)",
            _expect_object("$$tmp"),
            ("mpifort -g %s -J$$tmp -I. $(location expect_f.f90) $(location %s) " +
             "$$tmp/expect.o -o $@") % (" ".join(fflags), src),
            "rm -rf $$tmp",
        ]),
        message = "mpifort %s" % name,
        **kwargs
    )

def mpi_c_fortran_binary(name, src, copts = [], **kwargs):
    """A C program calling Open MPI's Fortran entry points (libmpi_mpifh)."""
    native.genrule(
        name = name + "_build",
        testonly = True,
        srcs = [src] + _EXPECT,
        outs = [name],
        executable = True,
        cmd = " && ".join([
            "tmp=$$(mktemp -d)",
            _expect_object("$$tmp"),
            ("mpicc -g %s -I. $(location %s) $$tmp/expect.o -lmpi_mpifh -o $@") %
            (" ".join(copts), src),
            "rm -rf $$tmp",
        ]),
        message = "mpicc %s" % name,
        **kwargs
    )
