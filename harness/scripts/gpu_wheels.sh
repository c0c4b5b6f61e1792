#!/usr/bin/env bash
# Download, into .whl/ (gitignored), the wheels a bare GPU image lacks for `kernelindex bench` to write
# canonical run files (the canonical writer, site_builder/canonical_yaml.py, needs ruamel.yaml and pydantic) and
# to measure Liger-Kernel beside our kernels.
# Run here, from the repository root; on the GPU machine install them as the device notes say:
#   python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
#   usage: harness/scripts/gpu_wheels.sh [PYTHON_VERSION]   (the GPU image's Python, default 3.12)
set -euo pipefail
version=${1:-3.12}
mkdir -p .whl
pip_download() {
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version "$version" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl "$@"
}
# Versions the site install resolves (pyproject.toml's ranges); pure-Python wheels first.
pip_download "ruamel.yaml==0.19.1" "pydantic==2.14.4" "annotated-types==0.8.0" "typing-inspection==0.4.5" "typing-extensions==4.16.0"
pip_download "pydantic-core==2.50.5" "ruamel.yaml.clib==0.2.15"
# The peer the bundled kernels are compared with (pure Python; its torch and triton are the image's).
pip_download "liger-kernel==0.8.5"
ls .whl
