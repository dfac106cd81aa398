"""Crash-test helper: commit transactions forever, printing each tx number once commit() returns.

usage: python storage_crash_writer.py DIR NODES_PER_TX CHECKPOINT_EVERY
Each transaction n creates NODES_PER_TX nodes labelled Tx with {"tx": n, "k": k} (one also holds a
384-d vector, so records are large and checkpoints slow), links them in a chain, and bumps the
counter node's "count" by one. The parent SIGKILLs this process at a random moment.
"""
import sys

import numpy as np

from relate.server.storage import GraphStore
from relate.values import Vector


def main() -> None:
    directory, per_tx, checkpoint_every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = GraphStore.open(directory, sync=True, checkpoint_every=checkpoint_every)
    vector = Vector(np.linspace(0, 1, 384, dtype=np.float32), "FLOAT32")
    tx = store.begin_write()
    counters = list(tx.nodes_by_label("Counter"))
    counter = counters[0] if counters else tx.create_node(["Counter"], {"count": 0})
    n = tx.node_prop(counter, "count")
    tx.commit()
    while True:
        n += 1
        tx = store.begin_write()
        previous = None
        for k in range(per_tx):
            props = {"tx": n, "k": k}
            if k == 0:
                props["embedding"] = vector
            nid = tx.create_node(["Tx"], props)
            if previous is not None:
                tx.create_rel("NEXT", previous, nid, {"tx": n})
            previous = nid
        tx.set_node_prop(counter, "count", n)
        tx.commit()
        sys.stdout.write(f"{n}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
