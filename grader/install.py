"""How what ships to users installs torch: the pin and PyTorch's CPU wheel index, once.

The release README, its GitHub workflow and GitLab job, and the Gradescope ``setup.sh`` all
install torch with :data:`TORCH_CPU_INSTALL`. From the default index, ``torch`` on Linux is the
CUDA build with its nvidia packages (gigabytes); the grader never uses a GPU.
The project's own requirement stays a range (pyproject.toml) that this pin satisfies.
"""

#: the torch every shipped install pins
TORCH = "torch==2.13.0"
#: PyTorch's index of CPU-only wheels
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
#: the pip arguments after ``pip install`` that install the CPU build of the pinned torch
TORCH_CPU_INSTALL = f"{TORCH} --index-url {TORCH_CPU_INDEX}"
