#!/usr/bin/env python3
"""Drop every file under the given directories from the page cache (POSIX_FADV_DONTNEED), so the
next read comes from disk. Needs no root; pages that are dirty or mapped by a process stay."""
import os
import sys

count = 0
for root in sys.argv[1:]:
    for folder, _, names in os.walk(root):
        for name in names:
            try:
                fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                count += 1
            finally:
                os.close(fd)
if count == 0:
    sys.exit("evict.py: no file dropped")
