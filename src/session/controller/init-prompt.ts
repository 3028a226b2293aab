// What /init asks of the model: the edit goes through the write or edit tool, so the
// permission mode shows its diff for approval like any edit.
export const INIT_PROMPT = `Study this workspace and write AGENTS.md at its root, or improve the one there.
Look before you write: list the folders, read the README, the build and package files, the test setup and a few central source files.
AGENTS.md is read by coding agents at the start of every session, so keep it short and concrete:
- what the project is, in two or three sentences;
- how to build, run the tests (a single test too) and check types or lint, as exact commands;
- the layout: the main folders and what each holds;
- the conventions the code follows (naming, errors, tests) and anything an agent must never do here.
If AGENTS.md exists, keep what is right, correct what is wrong and add what is missing; do not pad it.
Write it with the write tool (a new file) or the edit tool (an existing one).`;
