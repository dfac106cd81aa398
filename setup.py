"""Maps the fixed top-level folders onto the single `relate` import namespace."""
import os

from setuptools import setup

ROOTS = {"relate": "client", "relate.protocol": "protocol", "relate.server": "server", "relate.grammar": "grammar"}


def _packages():
    packages, package_dir = [], {}
    for name, folder in ROOTS.items():
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
            if "__init__.py" not in filenames:
                continue
            rel = os.path.relpath(dirpath, folder)
            pkg = name if rel == "." else name + "." + rel.replace(os.sep, ".")
            packages.append(pkg)
            package_dir[pkg] = dirpath
    return packages, package_dir


packages, package_dir = _packages()
setup(packages=packages, package_dir=package_dir, include_package_data=False,
      package_data={"relate.grammar": ["*.g4", "hash.md5"], "relate.server.http": ["static/*"]})
