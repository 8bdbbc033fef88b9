"""Which collectors a script or cell gets, from its syntax tree (any import form), not a pattern in its text."""

import ast

import pytest

from cann_nb.collect import auto

TORCH_SCRIPTS = [
    "import os, torch\nx = torch.ones(3)",
    "from torch import nn\nm = nn.Linear(2, 2)",
    "import torch.nn as nn",
    "import numpy as np\n\ndef main():\n    import torch\n    return torch.ones(2)\n",
    "import torchvision.models as models",
    "import importlib\ntorch = importlib.import_module('torch')",
    "try:\n    import torch_npu\nexcept ImportError:\n    pass",
    "import sys; import torch",
]
PYTHON_SCRIPTS = [
    "import numpy as np\nprint(np.ones(3))",
    "# import torch\nimport math",
    "text = 'import torch'\nprint(text)",
    "from . import torch_helpers",          # a relative import of the user's own module
    "import torchmetrics_like_name_but_not_torch",
]


@pytest.mark.parametrize("src", TORCH_SCRIPTS)
def test_any_import_form_of_torch_picks_the_torch_collector(src):
    assert auto.for_script(src) == auto.TORCH


@pytest.mark.parametrize("src", PYTHON_SCRIPTS)
def test_code_without_a_framework_import_gets_the_python_tracer(src):
    assert auto.for_script(src) == auto.PYTHON


def test_frameworks_are_named_in_order():
    tree = ast.parse("import mindspore\nfrom tensorflow import keras\nimport os, torch")
    assert auto.imported_frameworks(tree) == ["mindspore", "tensorflow", "torch"]
    # the first framework that has a collector (TensorFlow and MindSpore have theirs since issue 18)
    assert auto.for_frameworks(["mindspore", "tensorflow", "torch"]) == ("mindspore", "host", "gc")
    assert auto.for_frameworks(["tensorflow"]) == ("tensorflow", "host", "gc")
    assert auto.for_frameworks(["jax"]) is None


def test_a_sibling_module_that_imports_torch_counts(tmp_path):
    (tmp_path / "model.py").write_text("import os, torch\nclass Net(torch.nn.Module):\n    pass\n")
    script = tmp_path / "train.py"
    script.write_text("from model import Net\nnet = Net()\n")
    assert auto.for_script(script.read_text(), script) == auto.TORCH
    assert auto.for_script(script.read_text()) == auto.PYTHON   # without the path there is nothing to follow


def test_syntax_error_falls_back_to_the_python_tracer():
    assert auto.for_script("def broken(:\n") == auto.PYTHON


def test_cell_that_imports_torch_itself():
    assert auto.for_cell(ast.parse("import os, torch\ny = torch.zeros(2)"), {}) == auto.TORCH
    assert auto.for_cell(ast.parse("import math\nmath.sqrt(2)"), {}) == auto.PYTHON
