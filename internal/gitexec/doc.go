// Package gitexec starts git, and nothing else under internal/ starts a
// process (internal/archtest's TestOnlyGitexecImportsOsExec; its
// TestOnlyGitexecStartsGit covers the module). Named for what it is: the
// one way git is executed. Its surface: a command line built from
// constants and checked values (Command, Grep, Cmd), started in one
// repository (Open, Repo.Start, Stream, Output, RunWriting) within a
// process-wide Env (its home, slots, memory cap and sandbox).
//
// The walls, each with the test that holds it (those of the -c settings
// and the environment also show the control: plain git does the harm):
//
//   - Arguments: an argument vector, never a shell; values from outside
//     only after --end-of-options or "--", or as an option's value;
//     --literal-pathspecs but for Grep's explicit magic; the work tree only
//     for grep. TestCommandBuilder, TestRefusedCommandDoesNotRun,
//     TestArgsAreConstants (internal/archtest), TestSafetyOptionInjection,
//     TestSafetyLiteralPathspecs, TestSafetyNoShell.
//   - Environment: a clean one (private HOME and global config, no system
//     config, no transport, no replace objects or grafts, no prompts, no
//     optional locks) and a private working directory.
//     TestSafetyParentEnvironment, TestSafetyUserConfig,
//     TestSafetyReplaceObjects, TestHostilePartialCloneLazyFetch.
//   - Config pins (safeConfig, -c on every command line): no fsmonitor,
//     hooks, pager, external diff or textconv, signatures, submodules
//     entered; git's own output format. TestSafetyFSMonitor,
//     TestSafetyHooks, TestSafetyExternalDiff, TestSafetyTextconv,
//     TestSafetySignatures, TestSafetyPager, TestSafetyOutputConfig,
//     TestSafetyCoreWorktree, TestSafetyWorkTreeFilters,
//     TestHostileSubmoduleDiff.
//   - Rlimits: RLIMIT_DATA on each child, a share of a memory budget.
//     TestMemoryCap, TestShareMemory.
//   - Landlock (sandbox_linux.go): reads of the repository's store (and
//     its work tree for grep) and git's own files only, writes to the
//     private home only (a writing command: its git directory), execution
//     of git's programs only, no network but a fetch's.
//     TestSandboxRefusesShellWritesAndOutsideReads,
//     TestSandboxLeavesTheServerFree,
//     TestSandboxConfinedReadsIgnoreOutsideAlternates,
//     TestHostileGitmodulesInclude, TestHostileGitmodulesIncludeFIFO,
//     TestHostileBloblessCloneWritesNothing, TestParseSandboxMode.
//   - Timeouts: the call's context ends git with its process group; what is
//     not read is not computed; output and stderr capped.
//     TestStreamDeadlineKillsProcessGroup, TestStreamEarlyReturnStopsGit,
//     TestOutputLimit, TestStreamExitError.
//   - Slots: process slots served client by client, each client at most
//     its share with a bounded queue, the least slot time first (and
//     within a client the lightest connection), long commands yielding the
//     CPU while others are active; searches at most half, a bounded reader
//     table, a repository's share once others are open, early commands
//     never the last slot. TestOneClientCannotHoldEverySlot,
//     TestWaitingClientsServedInTurn, TestSlotTimeChoosesTheCheaperClient,
//     TestClientHeldAtItsShare, TestLighterConnectionFirstWithinAnAddress,
//     TestLongCommandYieldsTheCPU, TestSearchesTakeAtMostHalfTheSlots,
//     TestEarlyDiffsLeaveASlot, TestReadersBoundedAcrossRepositories,
//     TestReadersWaitWhenAllAreBusy,
//     TestBlockedRepositoriesLeaveReadersForOthers,
//     TestBlockedRepositoriesLeaveSlotsForOthers.
//
// It imports gitdir (where a repository's data lives: what the sandbox
// grants), callctx (whose turn a slot is) and sysmem (the machine's memory,
// which the memory budget defaults to a share of), nothing else of the
// module.
package gitexec
