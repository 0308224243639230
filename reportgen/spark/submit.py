"""The file to hand ``spark-submit`` (it runs Python applications given as ``.py`` files): the
reportgen command line, in the session spark-submit configured (docs/scale.md).

    spark-submit --master yarn "$(python -m reportgen.spark.submit --path)" gate --db … --engine spark
"""

from __future__ import annotations

import sys


def main() -> None:
    """Print this file's path (``--path``), or run the reportgen CLI with the arguments."""
    if sys.argv[1:] == ["--path"]:
        print(__file__)
        return
    from reportgen.cli import main as cli

    cli()


if __name__ == "__main__":
    main()
