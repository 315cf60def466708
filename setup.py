"""What pyproject.toml cannot say: the packages are gitmem and its subpackages, plus the
top-level hooks/ folder (the script git runs, and the agent and nightly recipes), shipped
inside the package as gitmem.hookscripts so that hooks.py finds it with importlib.resources
in a wheel and in an editable install alike. Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["gitmem", "gitmem.*"]), "gitmem.hookscripts"],
      package_dir={"gitmem.hookscripts": "hooks"})
