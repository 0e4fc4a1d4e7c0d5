"""The application layer: each command's work as a function of a typed request.

Both front ends stand on it: the command line (tabletop.cli) parses, builds a request, calls the
job and prints its result; the Python API (tabletop.api) builds the same requests from its typed
arguments. Nothing here parses a command line or prints a table.

    estimate.py   estimate(EstimateRequest, reporter) -> EstimateResult
    numerics.py   converge(ConvergeRequest, ...) -> ConvergeResult, sweep(SweepRequest, ...) -> SweepResult
    validate.py   validate(ValidateRequest, ...) -> ValidateResult
    bench.py      bench(BenchRequest, ...) -> BenchResult
    games.py      play(PlayRequest, ...) -> PlayedGame, analyze(AnalyzeRequest, ...) -> AnalyzeResult
    replays.py    summary / verify / frames of a ReplayRequest
    requests.py   the request dataclasses, each checked when it is made (InputError naming the option)
    results.py    the result types: each holds the dict `--out` writes (`to_dict()`)
    longrun.py    what every long run shares, written once: the executor (local workers or Dask),
                  the checkpoint beside --out and --resume, progress, Ctrl-C, writing the result
    outcomes.py   what each device's labels mean and its fair odds (for tables and plots)

A job reports to a `Reporter` (longrun.py): its notes, warnings and progress bars, and the result
once it is ready (before --out is written); the default reports nothing.
"""
