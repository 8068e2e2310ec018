"""Pipeline stages: functions that read and write stage files.

Each stage takes plain values (paths, parameter dicts) so that Snakemake rules,
the command line and tests call the same code. A stage does I/O only: physics lives in
:mod:`flocklab.models`, analysis (statistics, summaries, fits, sensitivity indices) in
pure functions of :mod:`flocklab.analysis`; plotting in :mod:`flocklab.figures.plotting`.
"""
