package postgres

// FoldEvery exposes foldEvery to the counting tests.
const FoldEvery = foldEvery
