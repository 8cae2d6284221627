"""Imported first by every test module: tests run against this checkout's `tally`
package (sdk/python), also when run as `python3 -m unittest discover -s sdk/python/tests`
from the repository root, and even if another tally-python is installed."""

import os
import sys

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if sys.path[:1] != [PACKAGE_ROOT]:
    sys.path.insert(0, PACKAGE_ROOT)
