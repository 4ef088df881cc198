"""setup.py - what pyproject.toml cannot say: the wheel carries the
libdlgemm.so that CMake built (copied into the package at build time, as
dlgemm/libdlgemm.so.0, which _lib.path() finds), its version comes from
that library's CMake project, and its tag names the platform (a native
library inside) but no Python ABI (no extension module: ctypes only).
"""
import os
import re
import shutil
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools before 70: the wheel package's
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(dlgemm VERSION ([0-9.]+)", f.read()).group(1)


class with_library(build_py):
    def run(self):
        super().run()
        build = os.environ.get("DLGEMM_BUILD_DIR", os.path.join(ROOT, "build"))
        lib = os.path.realpath(os.path.join(build, "libdlgemm.so.0"))
        if not os.path.isfile(lib):
            raise SystemExit("dlgemm wheel: %s not found: build the library first "
                             "(cmake -S . -B build && cmake --build build), or set "
                             "DLGEMM_BUILD_DIR" % lib)
        shutil.copyfile(lib, os.path.join(self.build_lib, "dlgemm", "libdlgemm.so.0"))
        # beside the packages, so that it lands in site-packages, where
        # Python's site module reads .pth files at start-up
        shutil.copyfile(os.path.join(HERE, "dlgemm-autoload.pth"),
                        os.path.join(self.build_lib, "dlgemm-autoload.pth"))


class platform_wheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")


setup(
    version=version(),
    packages=["dlgemm"],
    # dlgemm-autoload.pth (copied by with_library): at interpreter start, one
    # import, which does nothing unless the autoload is on
    py_modules=["_dlgemm_autoload"],
    cmdclass={"build_py": with_library, "bdist_wheel": platform_wheel},
)
