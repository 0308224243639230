"""Types of the compiled kernels (reportgen/divergence/_kernels.pyx)."""

from typing import Any

import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]
_I8 = npt.NDArray[np.int8]

def align_pairs(
    a_vals: _I64,
    a_start: _I64,
    a_len: _I64,
    b_vals: _I64,
    b_start: _I64,
    b_len: _I64,
    n_codes: int,
    lcs_out: _I64,
    row_off: _I64,
    rows_b: _I64,
    rows_c: _I64,
    full_rows_words: int = ...,
) -> None: ...

FULL_ROWS_WORDS: int

def recovery_walk(wasted: _I8, aligned: _I8, off: _I64, rec_out: _I64, unrec_out: _I64) -> None: ...
def loop_scan(
    codes: _I64,
    payloads: _I64,
    off: _I64,
    n_codes: int,
    seq_out: _I64,
    start_out: _I64,
    length_out: _I64,
    iterations_out: _I64,
    stagnant_out: _I8,
) -> int: ...
def diff_lists(
    row_off: _I64,
    kind: _I8,
    rows_b: _I64,
    rows_c: _I64,
    action: _I64,
    actions: list[Any],
    names: tuple[str, str, str, str],
) -> list[list[dict[str, Any]]]: ...
def step_diffs_json(
    row_off: _I64,
    kind: _I8,
    rows_b: _I64,
    rows_c: _I64,
    action: _I64,
    action_json: list[bytes],
    b_start: _I64,
    b_size: _I64,
    c_start: _I64,
    c_size: _I64,
    slot_row: _I64,
    step_off: _I64,
    step_data: npt.NDArray[np.uint8],
    overrides: list[bytes],
    args: list[bytes | None],
) -> list[bytes]: ...
def argument_diffs(
    b_row: _I64, c_row: _I64, text_off: _I64, text_data: npt.NDArray[np.uint8]
) -> tuple[list[bytes | None], list[int]]: ...
def place_rows(
    rn: npt.NDArray[np.int32], idx: npt.NDArray[np.int32], off: _I64, pos: _I64
) -> bool: ...
def run_sums(
    rn: npt.NDArray[np.int32], values: _I64, valid: _I8, sums: _I64, given: _I8
) -> None: ...
def run_folds(
    rn: npt.NDArray[np.int32],
    pos: _I64,
    off: _I64,
    values: npt.NDArray[np.float64],
    valid: _I8,
    folds: npt.NDArray[np.float64],
    given: _I8,
) -> None: ...
def pair_recovery(
    wasted: _I8,
    b_start: _I64,
    b_len: _I64,
    c_start: _I64,
    c_len: _I64,
    row_off: _I64,
    rows_b: _I64,
    rows_c: _I64,
    rec_b: _I64,
    unrec_b: _I64,
    rec_c: _I64,
    unrec_c: _I64,
) -> None: ...
def alignment_orders(parent: _I64, off: _I64, order: _I64, cycle: _I8) -> bool: ...
def common_prefixes(
    sig: _I64, b_start: _I64, b_len: _I64, c_start: _I64, c_len: _I64, out: _I64
) -> None: ...
def identical_calls(sig: _I64, payload: _I64, off: _I64, out: _I64) -> None: ...
