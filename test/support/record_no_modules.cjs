// Preloaded into every test file's process (`node-arg` in .taprc). `--require` runs before any
// `--import`, so this runs before tap's process-info hook reads its exclusion. Under `npm test`
// (coverage off) the hook is told to record no module: it would read every module a test file and
// its in-process server load a second time, only for the coverage report and `tap --changed`,
// neither of which that run makes (docs/decisions.md, `npm test`). The processes a test starts
// inherit the setting. `npm run coverage` records as before.
if (process.env.TAP_DISABLE_COVERAGE === "1") process.env._TAPJS_PROCESSINFO_EXCLUDE_ = "/./";
