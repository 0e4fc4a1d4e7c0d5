"""What the command prints: its tables and lines, in rich (the jobs return results; this shows them)."""
from __future__ import annotations

from pathlib import Path

from tabletop.app.console import console as wide_console
from tabletop.app.outcomes import outcome_notes


def show_estimate(result) -> None:
    """The command's tables of an estimate result, on stdout."""
    console = wide_console()
    _print_table(console, result)
    if "against" in result:
        a = result["against"]
        console.print(f"against {a['name']}: chi-square {a['chi2']:.2f} on {a['dof']} degrees of freedom, "
                      f"p = {a['p_value']:.3g}")
    if "sensitivity" in result:
        _print_sensitivity(console, result)
    if "uncertainty" in result:
        _print_uncertainty(console, result)


def show_converge(result) -> None:
    _print_converge(wide_console(), result)


def show_sweep(result) -> None:
    console = wide_console()
    console.print(_sweep_table(result["device"], result["trials_each"], result["param"], result.labels,
                               result["rows"], console.width))


def show_validate(result) -> None:
    from rich.markup import escape
    from rich.table import Table

    from tabletop.sim.validate import EXIT_STATUS, verdict_text

    rows = result["cases"]
    table = Table(title=f"tabletop validate{' --quick' if result['quick'] else ''} (seed {result['seed']})")
    for col in ("", "case", "source", "published", "ours (95% interval)", "trials", "verdict (rule below)"):
        table.add_column(col, overflow="fold", ratio=3 if col == "case" else None)
    for n, r in enumerate(rows, 1):
        table.add_row(str(n), r["case"], r["cite"], r["published"], r["ours"], str(r["trials"]),
                      _verdict_markup(r["verdict"], verdict_text(r)) + f" [{n}]")
    console = wide_console()
    console.print(table)
    console.print("rules:")
    for n, r in enumerate(rows, 1):
        console.print(f"  [{n}] {escape(r['rule'])}", soft_wrap=True)
    if result.get("calibration"):
        from tabletop.app.validate import calibration_lines

        for line in calibration_lines(result["calibration"]):
            console.print(escape(line), soft_wrap=True)
    console.print(f"{result['tally']}; what each figure means, and why we disagree where we do: "
                  f"docs/validation.md; {EXIT_STATUS}", soft_wrap=True)


def show_bench(result) -> None:
    _print_summary(*result.summary)


def show_analyze(result) -> None:
    from tabletop.gamekit.analyze import print_report

    print_report(wide_console(), result.to_dict())


def _sweep_table(device: str, trials: int, name: str, labels, rows: list[dict], width: int):
    """The sweep's table: a row per value, a column per label's p. Headers are never cut: the
    parameter's name is given on lines cut after its dots and slashes, and so are labels like
    cave1/seat1 when the table would not fit `width` columns otherwise."""
    from rich.table import Table

    from tabletop.sim.analysis import wrap_name

    values = [f"{r['value']:.6g}" for r in rows]
    wide = 1 + sum(3 + max(len(k), 5) for k in labels)
    room = max(8, width - wide - 3)
    label_lines = {k: [k] for k in labels}
    if wide + 3 + max(len(name), 8) > width:
        label_lines = {k: wrap_name(k, 5) for k in labels}
        room = max(8, width - 1 - sum(3 + max(max(map(len, label_lines[k])), 5) for k in labels) - 3)
    head = wrap_name(name, max(room, max(map(len, values))))
    shown = Table(title=f"{device}: the probability of each outcome at each value of {name}, {trials} trials each")
    shown.add_column("\n".join(head), justify="right", no_wrap=True, min_width=max(map(len, head)))
    for k in labels:
        shown.add_column("\n".join(label_lines[k]), justify="right", no_wrap=True,
                         min_width=max(5, *map(len, label_lines[k])))
    for v, r in zip(values, rows):
        shown.add_row(v, *[f"{r['probabilities'][k]['p']:.3f}" for k in labels])
    return shown


def _interval(ci, signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"[{ci[0]:{sign}.4f}, {ci[1]:{sign}.4f}]"


def _statuses(summary: dict) -> str:
    return (f"labelled {summary['labelled']}  unsettled {summary['unsettled']}  "
            f"escaped {summary['escaped']}  lodged {summary['lodged']}")


def _print_table(console, result: dict) -> None:
    from rich.table import Table

    cal = result.get("calibration")
    # the calibrated copy's band (the calibration's) where an uncalibrated run shows the model band
    band = {k: v["ci95"] for k, v in cal["bands"].items()} if cal else result.get("model_band")
    copy = f" (the calibrated copy of {Path(cal['file']).name})" if cal else ""
    table = Table(title=f"{result['device']}{copy}: {result['trials']} trials, seed {result['seed']}")
    table.add_column("outcome")
    table.add_column("count", justify="right")
    table.add_column("p", justify="right")
    table.add_column("95% interval", justify="right")
    if band:
        table.add_column("calibrated band" if cal else "model band", justify="right")
    for label, k in result["counts"].items():
        pr = result["probabilities"][label]
        table.add_row(label, str(k), f"{pr['p']:.4f}", _interval(pr["ci95"]),
                      *([_interval(band[label]) if label in band else "-"] if band else []))
    console.print(table)
    console.print(f"{_statuses(result)}  mean simulated time {result['mean_sim_time_s']:.2f} s  "
                  f"elapsed {result['elapsed_s']:.1f} s")
    for line in outcome_notes(result["device"]):
        console.print(line, style="dim", highlight=False)
    if cal:
        drawn = "; ".join(f"{p['name']} (posterior {p['posterior']['mean']:.4g}, 95% {p['posterior']['ci95'][0]:.4g} "
                          f".. {p['posterior']['ci95'][1]:.4g})" for p in cal["parameters"])
        console.print(f"calibrated copy ({cal['file']}): each trial drew {drawn} from the calibration's posterior, "
                      f"the other pair values from their ranges; " + (
                          cal["band_note"] if cal.get("band_note") else
                          "calibrated band: the calibration's 95% band of p"), soft_wrap=True)
    elif band:
        by_name = {p["name"]: p for p in result["sensitivity"]["parameters"]}
        top = [f"{name} ({by_name[name]['max_abs_dp']:.4f})" for name in result["sensitivity"]["ranking"][:3]]
        console.print(f"model band: p over the estimate and its {2 * len(by_name)} runs at the ends of the "
                      f"uncertain inputs; the inputs that matter most (largest |dp|): {', '.join(top)}")


def _print_sensitivity(console, result: dict) -> None:
    """Each uncertain input's largest change of p at either end of its range, largest first (every
    label's change is in the JSON)."""
    from rich.table import Table

    block = result["sensitivity"]
    by_name = {p["name"]: p for p in block["parameters"]}
    table = Table(title=f"sensitivity: the largest change of p at either end of each range "
                        f"({block['trials']} paired trials)")
    for column in ("input", "range", "outcome", "end", "dp ± 95%"):
        table.add_column(column, justify="right" if column in ("range", "dp ± 95%") else "left")
    for name in block["ranking"]:
        prm = by_name[name]
        label, end = max(((k, e) for k in prm["labels"] for e in ("low", "high")),
                         key=lambda ke: abs(prm["labels"][ke[0]][f"dp_{ke[1]}"]))
        v = prm["labels"][label]
        lo, hi = v[f"dp_{end}_ci95"]
        table.add_row(name, f"[{prm['low']:.4g}, {prm['high']:.4g}]", label, end,
                      f"{v[f'dp_{end}']:+.4f} ± {(hi - lo) / 2:.4f}")
    console.print(table)


def _print_uncertainty(console, result: dict) -> None:
    """The odds with every pair value drawn per trial beside the estimate's, and the strongest influences."""
    from rich.table import Table

    block = result["uncertainty"]
    mix = block["summary"]
    table = Table(title=f"uncertainty: {block['trials']} trials, pair values drawn {block['draw']}")
    table.add_column("outcome")
    table.add_column("p (spec values)", justify="right")
    table.add_column("p (drawn)", justify="right")
    table.add_column("95% interval", justify="right")
    for label, pr in mix["probabilities"].items():
        table.add_row(label, f"{result['probabilities'][label]['p']:.4f}", f"{pr['p']:.4f}", _interval(pr["ci95"]))
    console.print(table)
    console.print(_statuses(mix))
    strongest = []
    for name in block["ranking"][:3]:
        known = [(k, c) for k, c in block["influence"][name].items() if c["r"] is not None]
        if known:
            label, c = max(known, key=lambda kc: abs(kc[1]["r"]))
            strongest.append(f"{name} (r {c['r']:+.3f} with {label}, 95% {_interval(c['ci95'], signed=True)})")
    if strongest:
        console.print(f"strongest influences: {'; '.join(strongest)}")


def _print_converge(console, result: dict) -> None:
    """Each refinement's paired comparison with the base run, and the verdict."""
    from rich.table import Table

    from tabletop.sim.converge import describe_check, describe_result

    base = result["base"]
    console.print(f"{result['device']}: {result['trials']} trials, seed {result['seed']}; base run {_statuses(base)}")
    for c in result["checks"]:
        table = Table(title=f"{c['name']}: " + ", ".join(f"{k} = {v}" for k, v in c["overrides"].items()))
        for column in ("outcome", "p base", "p refined", "dp", "95% interval of dp"):
            table.add_column(column, justify="left" if column == "outcome" else "right")
        for label, v in c["labels"].items():
            table.add_row(label, f"{v['p_base']:.4f}", f"{v['p_refined']:.4f}", f"{v['dp']:+.4f}",
                          _interval(v["dp_ci95"], signed=True))
        console.print(table)
        sm = c["stuart_maxwell"]
        chi = ("not testable (a run labelled nothing)" if c["p_value"] is None
               else f"chi-square {c['chi2']:.2f} on {c['dof']} dof, p = {c['p_value']:.3g}")
        console.print(f"largest |dp| {c['max_abs_dp']:.4f} ({c['max_abs_dp_label']}, "
                      f"{_interval(c['max_abs_dp_ci95'], signed=True)}); "
                      f"homogeneity {chi}; Stuart-Maxwell {sm['chi2']:.2f} on {sm['dof']} dof, "
                      f"p = {sm['p_value']:.3g}" + (f" ({sm['note']})" if "note" in sm else ""))
        console.print(f"refined run {_statuses(c['summary'])}: "
                      + _verdict_markup(c["verdict"], describe_check(c)), soft_wrap=True)
    console.print(_verdict_markup(result["verdict"], describe_result(result)), soft_wrap=True)
    console.print(f"the rule: {result['criteria']['test']}")


def _verdict_markup(verdict: str, text: str) -> str:
    """`text` with its leading verdict coloured: converged / agrees green, cannot tell / near yellow,
    not converged / disagrees red."""
    from rich.markup import escape

    colour = {"converged": "green", "agrees": "green", "cannot tell": "yellow", "near": "yellow"}.get(verdict, "red")
    return f"[{colour}]{escape(verdict)}[/{colour}]{escape(text[len(verdict):])}"


def _print_summary(title: str, columns: list[str], rows: list[list[str]], note: str) -> None:
    """A bench's figures as a table on stdout (the JSON only goes to --out)."""
    from rich.table import Table

    table = Table(title=title)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    console = wide_console()
    console.print(table)
    console.print(note, style="dim", highlight=False)
