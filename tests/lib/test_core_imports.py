"""The core library imports and works with numpy alone: neither torch nor sympy needed."""

import subprocess
import sys
import textwrap


def test_core_imports_without_torch_or_sympy():
    script = textwrap.dedent(
        """
        import sys
        for name in ("torch", "sympy", "mpmath", "matplotlib", "scipy"):
            sys.modules[name] = None  # makes any `import name` raise ImportError
        import posenc_lib as pe
        table = pe.sinusoidal(4, 8)
        assert table.shape == (4, 8)
        assert abs(pe.kernel(0.0, 8) - 1.0) < 1e-15
        for name in pe.__all__:
            getattr(pe, name)
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
