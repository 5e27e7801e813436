"""Stand-in for ansible-test's get-pip bootstrap script.

ansible-test bootstraps pip in each sanity venv with a get-pip script downloaded from
its own CI file host, which these machines cannot reach (only PyPI). This script does
the same job from what is here: pip bundled with CPython (ensurepip), then the
requested packages (e.g. pip==24.2) from PyPI. scripts/sanity.sh puts it into
ansible-test's cache under the name ansible-test looks for.
"""

import ensurepip
import os
import subprocess
import sys

IGNORED = ("--no-setuptools", "--no-wheel")

ensurepip.bootstrap(upgrade=True)
# ensurepip points PIP_CONFIG_FILE at /dev/null; the install below must see the
# machine's pip configuration (index, CA bundle) again.
os.environ.pop("PIP_CONFIG_FILE", None)
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install"] + [a for a in sys.argv[1:] if a not in IGNORED]))
