//! id/parentId trees (Pi, omp, OpenClaw) → the newest branch as a line of entries.
//! Implemented with the tree-shaped adapters.
