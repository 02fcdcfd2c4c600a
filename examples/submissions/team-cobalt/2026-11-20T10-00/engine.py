#!/usr/bin/env python3
"""Team cobalt, first submission: the template's random mover, unchanged."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../engines/python"))
import random_engine as template  # noqa: E402

template.main()
