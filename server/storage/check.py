"""``relate check DIR``: verify a database directory without changing it - the checkpoint manifest,
the snapshot's checksum, every WAL record - and say what a ``--recover-truncate`` open would drop."""
from __future__ import annotations

import os

from relate.protocol.errors import DatabaseError

from . import codec, integrity
from .snapshot import SNAPSHOT_NAME, read_snapshot
from .wal import HEADER_SIZE, list_segments, read_segment


def check_directory(path: str) -> tuple[bool, list[str]]:
    """(healthy, report lines). A torn tail (the last record cut short) counts as healthy."""
    if not os.path.isdir(path):
        return False, [f"{path}: not a directory"]
    lines, healthy = [], True
    try:
        manifest = integrity.read_manifest(path)
    except integrity.StorageDamaged as exc:
        return False, [str(exc)]
    snapshot_path = os.path.join(path, SNAPSHOT_NAME)
    lines.append("manifest: " + ("none (written at the next open)" if manifest is None else
                                 f"snapshot ts {manifest['snapshot_ts']}, WAL from segment {manifest['wal_seq']}"))
    for missing in integrity.missing_files(path, manifest, os.path.exists(snapshot_path)):
        healthy = False
        lines.append(f"MISSING: {missing}")
    snapshot_ts = 0
    if os.path.exists(snapshot_path):
        try:
            records = read_snapshot(snapshot_path)
            snapshot_ts = next(records)["ts"]
            count = sum(1 for _ in records)
            lines.append(f"snapshot: ts {snapshot_ts}, {count} entities, checksum ok")
        except (DatabaseError, OSError, ValueError) as exc:
            healthy = False
            lines.append(f"DAMAGED snapshot: {exc}")
    segments = list_segments(path)
    for position, (seq, segment) in enumerate(segments):
        payloads, good_end, damaged = read_segment(segment)
        offset, commits, bad = 0, [], None
        for payload in payloads:
            try:
                commit_ts, _ = integrity.decode_record(payload, segment, offset, codec.decode)
            except integrity.StorageDamaged:
                bad, damaged, good_end = "a record that passes its checksum but does not decode", True, offset
                break
            commits.append(commit_ts)
            offset += HEADER_SIZE + len(payload)
        span = f"ts {commits[0]}..{commits[-1]}" if commits else "no commits"
        lines.append(f"{os.path.basename(segment)}: {len(commits)} records, {span}")
        if not damaged:
            continue
        with open(segment, "rb") as f:
            later = integrity.valid_records_after(f.read(), good_end, codec.decode)
        later += integrity.later_segment_commits([p for _, p in segments[position + 1:]], codec.decode)
        damage = integrity.Damage(segment, good_end, later, bad or "bad checksum or length")
        if later:
            healthy = False
            lines.append(f"DAMAGED: {damage.describe()}; --recover-truncate would drop those commits")
        else:
            lines.append(f"torn tail at byte {good_end} (discarded at the next open; no commit is lost)")
        break
    lines.append("ok" if healthy else "DAMAGED: the database will not open until repaired or opened "
                                      "with --recover-truncate")
    return healthy, lines


def main(argv: list[str]) -> int:
    """Exit 0 when every directory is healthy, 1 otherwise."""
    if not argv:
        print("usage: relate check DIR [DIR ...]")
        return 2
    status = 0
    for path in argv:
        healthy, lines = check_directory(path)
        print(f"{path}:")
        for line in lines:
            print(f"  {line}")
        status |= 0 if healthy else 1
    return status
