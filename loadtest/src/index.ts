// @voice/loadtest: the load tester's parts, for its own tests and the benchmark.
export {};
