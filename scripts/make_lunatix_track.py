"""Generate a full Lunatix Loop track file from a compact track description.

Usage::

    python scripts/make_lunatix_track.py IN.compact.yaml OUT.yaml
    python scripts/make_lunatix_track.py --check IN.compact.yaml OUT.yaml

The compact description (see ``configs/lunatix/tracks/the_loop.compact.yaml``)::

    name: The Loop
    lanes: 3                       # odd; lane 0 is the inside lane
    segments:                      # race order (counter-clockwise), starting AT the line
      - {straight: 6, surface: asphalt}
      - {curve: [4, 6, 8], ratings: [[40, 50], [60, 70], [80, 90]], surface: dirt}
      ...                          # a curve may also carry `name:` (default "Curve <n>")
    start_rows: 2                  # the last rows before the line hold the start dots
    pit:                           # lane-0 openings; row -1 is the last row before the
      A1: {row: -4, safe_speed: 40}  # line (final straight), row 1 the first row after
      A2: {row: -3}                  # it (first straight); safe_speed has a default
      B1: {row: 1}
      B2: {row: 2}

Geometry (all in exact fractions, rounded only when written): the along-track coordinate
``s`` is measured in middle-lane squares from the finish line. On a straight of length L every
lane has L aligned squares; a curve spans the s-range of its middle-lane count and a lane with
n squares splits that range evenly. Curve squares whose centre lies before the middle of the
span take the lane's entry rating, the others its exit rating. Forward neighbours are the next
square of the same lane and, in each adjacent lane, the square with the smallest s strictly
greater (cyclically); backward neighbours mirror that. The output is deterministic.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

SURFACES = ("asphalt", "dirt")
OPENING_NAMES = ("A1", "A2", "B1", "B2")
DEFAULT_SAFE_SPEEDS = {"A1": 40, "A2": 30, "B1": 30, "B2": 40}
S_DECIMALS = 6


class TrackError(ValueError):
    """Raised when a compact description or a generated track is invalid."""


@dataclass(frozen=True)
class Segment:
    """One segment of the compact description, in race order."""

    kind: str  # "straight" or "curve"
    counts: tuple[int, ...]  # squares per lane, inside -> outside
    surface: str
    ratings: tuple[tuple[int, int], ...] | None = None  # per lane (entry, exit); curves only
    name: str | None = None  # curves only


@dataclass(frozen=True)
class Opening:
    """A pit opening given by its row relative to the finish line."""

    name: str
    row: int
    safe_speed: int


@dataclass(frozen=True)
class CompactTrack:
    """A parsed compact track description."""

    name: str
    num_lanes: int
    segments: tuple[Segment, ...]
    start_rows: int
    openings: tuple[Opening, ...]


@dataclass
class Square:
    """One square of the generated track (s kept exact until written)."""

    id: int
    lane: int
    s: Fraction
    curve: int | None
    rating: int | None
    surface: str


# --------------------------------------------------------------------------- parsing


def _require_int(value: Any, what: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise TrackError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return value


def _parse_segment(raw: Any, index: int, num_lanes: int) -> Segment:
    what = f"segment {index}"
    if not isinstance(raw, dict):
        raise TrackError(f"{what} must be a mapping")
    surface = raw.get("surface", "asphalt")
    if surface not in SURFACES:
        raise TrackError(f"{what}: surface must be one of {SURFACES}, got {surface!r}")
    if ("straight" in raw) == ("curve" in raw):
        raise TrackError(f"{what} needs exactly one of 'straight' or 'curve'")
    if "straight" in raw:
        unknown = set(raw) - {"straight", "surface"}
        if unknown:
            raise TrackError(f"{what}: unknown keys {sorted(unknown)}")
        length = _require_int(raw["straight"], f"{what} straight length")
        return Segment("straight", (length,) * num_lanes, surface)
    unknown = set(raw) - {"curve", "ratings", "surface", "name"}
    if unknown:
        raise TrackError(f"{what}: unknown keys {sorted(unknown)}")
    counts = raw["curve"]
    ratings = raw.get("ratings")
    if not isinstance(counts, list) or len(counts) != num_lanes:
        raise TrackError(f"{what}: curve needs {num_lanes} squares-per-lane counts")
    if not isinstance(ratings, list) or len(ratings) != num_lanes:
        raise TrackError(f"{what}: curve needs {num_lanes} [entry, exit] ratings")
    parsed_counts = tuple(_require_int(c, f"{what} lane count") for c in counts)
    parsed_ratings: list[tuple[int, int]] = []
    for pair in ratings:
        if not isinstance(pair, list) or len(pair) != 2:
            raise TrackError(f"{what}: each rating must be [entry, exit], got {pair!r}")
        parsed_ratings.append(
            (_require_int(pair[0], f"{what} rating", 0), _require_int(pair[1], f"{what} rating", 0))
        )
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise TrackError(f"{what}: name must be a string")
    return Segment("curve", parsed_counts, surface, tuple(parsed_ratings), name)


def parse_compact(raw: Any) -> CompactTrack:
    """Parse a loaded compact description into a :class:`CompactTrack`."""
    if not isinstance(raw, dict):
        raise TrackError("the compact description must be a mapping")
    unknown = set(raw) - {"name", "lanes", "segments", "start_rows", "pit"}
    if unknown:
        raise TrackError(f"unknown top-level keys {sorted(unknown)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise TrackError("name must be a non-empty string")
    num_lanes = _require_int(raw.get("lanes"), "lanes")
    if num_lanes % 2 == 0:
        raise TrackError("lanes must be odd (curve spans follow the middle lane)")
    raw_segments = raw.get("segments")
    if not isinstance(raw_segments, list) or not raw_segments:
        raise TrackError("segments must be a non-empty list")
    segments = tuple(_parse_segment(seg, i, num_lanes) for i, seg in enumerate(raw_segments))
    start_rows = _require_int(raw.get("start_rows"), "start_rows")
    raw_pit = raw.get("pit")
    if not isinstance(raw_pit, dict) or set(raw_pit) != set(OPENING_NAMES):
        raise TrackError(f"pit must give exactly the openings {list(OPENING_NAMES)}")
    openings = []
    for opening_name in OPENING_NAMES:
        spec = raw_pit[opening_name]
        if not isinstance(spec, dict) or not set(spec) <= {"row", "safe_speed"}:
            raise TrackError(f"pit {opening_name} must be a mapping of row and safe_speed")
        row = spec.get("row")
        if isinstance(row, bool) or not isinstance(row, int) or row == 0:
            raise TrackError(f"pit {opening_name}: row must be a non-zero integer")
        speed = _require_int(
            spec.get("safe_speed", DEFAULT_SAFE_SPEEDS[opening_name]),
            f"pit {opening_name} safe_speed",
            0,
        )
        openings.append(Opening(opening_name, row, speed))
    return CompactTrack(name, num_lanes, segments, start_rows, tuple(openings))


def load_compact(path: Path) -> CompactTrack:
    """Read and parse a compact track description file."""
    with path.open(encoding="utf-8") as handle:
        return parse_compact(yaml.safe_load(handle))


# --------------------------------------------------------------------------- geometry


def _cyclic_pick(s: Fraction, candidates: list[Square], length: Fraction, forward: bool) -> int:
    """Id of the candidate nearest to ``s`` strictly ahead (or behind), cyclically."""

    def distance(square: Square) -> Fraction:
        d = (square.s - s) % length if forward else (s - square.s) % length
        return d if d > 0 else length

    return min(candidates, key=lambda sq: (distance(sq), sq.id)).id


def _row_square(compact: CompactTrack, lanes: list[list[Square]], lane: int, row: int) -> Square:
    """The square of ``lane`` in ``row`` (negative: before the line, positive: after)."""
    if row > 0:
        segment = compact.segments[0]
        if segment.kind != "straight" or row > segment.counts[lane]:
            raise TrackError(f"row {row} is not on the straight after the line")
        return lanes[lane][row - 1]
    segment = compact.segments[-1]
    if segment.kind != "straight" or -row > segment.counts[lane]:
        raise TrackError(f"row {row} is not on the straight before the line")
    return lanes[lane][row]


def build_track(compact: CompactTrack) -> dict[str, Any]:
    """Build the full track (plain data, ready to write) from a compact description."""
    middle = compact.num_lanes // 2
    lanes: list[list[Square]] = [[] for _ in range(compact.num_lanes)]
    curves: list[dict[str, Any]] = []
    seg_start = Fraction(0)
    for segment in compact.segments:
        span = Fraction(segment.counts[middle])
        curve_id: int | None = None
        if segment.kind == "curve":
            assert segment.ratings is not None
            curve_id = len(curves)
            curves.append(
                {
                    "id": curve_id,
                    "name": segment.name or f"Curve {curve_id + 1}",
                    "lanes": [list(pair) for pair in segment.ratings],
                }
            )
        for lane, count in enumerate(segment.counts):
            for k in range(count):
                centre = seg_start + (k + Fraction(1, 2)) * span / count
                rating = None
                if segment.ratings is not None:
                    entry, exit_ = segment.ratings[lane]
                    rating = entry if 2 * k + 1 < count else exit_
                lanes[lane].append(Square(-1, lane, centre, curve_id, rating, segment.surface))
        seg_start += span
    length = seg_start

    next_id = 0
    for lane_squares in lanes:
        for square in lane_squares:
            square.id = next_id
            next_id += 1

    rows: list[dict[str, Any]] = []
    for lane, lane_squares in enumerate(lanes):
        n = len(lane_squares)
        for k, square in enumerate(lane_squares):
            fwd: list[int | None] = []
            back: list[int | None] = []
            for other in (lane - 1, lane, lane + 1):
                if not 0 <= other < compact.num_lanes:
                    fwd.append(None)
                    back.append(None)
                elif other == lane:
                    fwd.append(lane_squares[(k + 1) % n].id)
                    back.append(lane_squares[(k - 1) % n].id)
                else:
                    fwd.append(_cyclic_pick(square.s, lanes[other], length, forward=True))
                    back.append(_cyclic_pick(square.s, lanes[other], length, forward=False))
            rows.append(
                {
                    "id": square.id,
                    "lane": lane,
                    "s": round(float(square.s), S_DECIMALS),
                    "curve": square.curve,
                    "rating": square.rating,
                    "surface": square.surface,
                    "fwd": fwd,
                    "back": back,
                }
            )

    start_dots = [
        _row_square(compact, lanes, lane, row).id
        for row in range(-compact.start_rows, 0)
        for lane in range(compact.num_lanes)
    ]
    openings = [
        {
            "name": opening.name,
            "square": _row_square(compact, lanes, 0, opening.row).id,
            "side": opening.name[0],
            "safe_speed": opening.safe_speed,
        }
        for opening in compact.openings
    ]
    track = {
        "name": compact.name,
        "num_lanes": compact.num_lanes,
        "length": float(length),
        "lanes": [[square.id for square in lane_squares] for lane_squares in lanes],
        "curves": curves,
        "squares": rows,
        "start_dots": start_dots,
        "pit": {"openings": openings, "basic_entry": "A2", "basic_exit": "B1"},
    }
    validate_track(track, compact)
    return track


# --------------------------------------------------------------------------- validation


def validate_track(track: dict[str, Any], compact: CompactTrack) -> None:
    """Check the generated track; raise :class:`TrackError` on the first problem."""
    squares = track["squares"]
    ids = [sq["id"] for sq in squares]
    if ids != list(range(len(squares))):
        raise TrackError("square ids must be 0..N-1 in order")
    for sq in squares:
        for key in ("fwd", "back"):
            for lane_offset, target in zip((-1, 0, 1), sq[key], strict=True):
                lane = sq["lane"] + lane_offset
                exists = 0 <= lane < track["num_lanes"]
                if exists != (target is not None):
                    raise TrackError(f"square {sq['id']}: bad {key} entry {target!r}")
                if target is not None and not (
                    0 <= target < len(squares) and squares[target]["lane"] == lane
                ):
                    raise TrackError(f"square {sq['id']}: {key} {target} is not in lane {lane}")
    curve_segments = [seg for seg in compact.segments if seg.kind == "curve"]
    for curve, segment in zip(track["curves"], curve_segments, strict=True):
        for lane, expected in enumerate(segment.counts):
            got = sum(1 for sq in squares if sq["curve"] == curve["id"] and sq["lane"] == lane)
            if got != expected:
                raise TrackError(f"{curve['name']} lane {lane}: {got} squares, want {expected}")
    start_dots = track["start_dots"]
    if len(set(start_dots)) != len(start_dots):
        raise TrackError("start dots must be distinct")
    openings = track["pit"]["openings"]
    by_name = {op["name"]: op for op in openings}
    if len({op["square"] for op in openings}) != len(openings):
        raise TrackError("pit openings must be distinct squares")
    for op in openings:
        if squares[op["square"]]["lane"] != 0:
            raise TrackError(f"pit opening {op['name']} is not on lane 0")
        if op["square"] in start_dots:
            raise TrackError(f"pit opening {op['name']} is a start dot")
    rows = {op.name: op.row for op in compact.openings}
    if not (rows["A1"] < rows["A2"] < 0 < rows["B1"] < rows["B2"]):
        raise TrackError("openings must be A1 before A2 before the line, B1 before B2 after it")
    if set(by_name) != set(OPENING_NAMES):
        raise TrackError("pit openings must be exactly A1, A2, B1, B2")


# --------------------------------------------------------------------------- writing

_PLAIN_STRING = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_YAML_KEYWORDS = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"}


def _flow(value: Any) -> str:
    """Render a value in YAML flow style (deterministic, one line)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.{S_DECIMALS}f}".rstrip("0")
        return text + "0" if text.endswith(".") else text
    if isinstance(value, str):
        if _PLAIN_STRING.match(value) and value.lower() not in _YAML_KEYWORDS:
            return value
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_flow(item)}" for key, item in value.items()) + "}"
    raise TypeError(f"cannot render {type(value).__name__}")


def render_track(track: dict[str, Any], source_name: str) -> str:
    """Render the track as YAML text with a generated-file header."""
    lines = [
        f"# generated by scripts/make_lunatix_track.py from {source_name}; do not edit",
        f"name: {_flow(track['name'])}",
        f"num_lanes: {_flow(track['num_lanes'])}",
        f"length: {_flow(track['length'])}",
        "lanes:",
        *(f"  - {_flow(lane)}" for lane in track["lanes"]),
        "curves:",
        *(f"  - {_flow(curve)}" for curve in track["curves"]),
        "squares:",
        *(f"  - {_flow(square)}" for square in track["squares"]),
        f"start_dots: {_flow(track['start_dots'])}",
        "pit:",
        "  openings:",
        *(f"    - {_flow(op)}" for op in track["pit"]["openings"]),
        f"  basic_entry: {_flow(track['pit']['basic_entry'])}",
        f"  basic_exit: {_flow(track['pit']['basic_exit'])}",
    ]
    text = "\n".join(lines) + "\n"
    if yaml.safe_load(text) != track:
        raise TrackError("rendered YAML does not load back to the same track")
    return text


def generate(compact_path: Path) -> str:
    """Return the full track YAML text generated from a compact description file."""
    return render_track(build_track(load_compact(compact_path)), compact_path.name)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("compact", type=Path, help="compact track description (YAML)")
    parser.add_argument("output", type=Path, help="full track file to write (YAML)")
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 if OUTPUT is out of date"
    )
    args = parser.parse_args(argv)
    try:
        text = generate(args.compact)
    except TrackError as error:
        print(f"error: {args.compact}: {error}", file=sys.stderr)
        return 2
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
        if current != text:
            print(f"{args.output} is out of date; regenerate it from {args.compact}")
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
