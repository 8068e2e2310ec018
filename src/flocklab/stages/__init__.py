"""Pipeline stages: functions that read and write stage files.

Each stage takes plain values (paths, parameter dicts) so that Snakemake rules,
the command line and tests call the same code. Physics lives in
:mod:`flocklab.models` and :mod:`flocklab.analysis.timeseries`; plotting in
:mod:`flocklab.figures.plotting`.
"""
