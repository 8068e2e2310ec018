# Stage 4: the HTML report (`snakemake --report results/report.html`) shows every output
# marked with report() in the other rules, under this description.


report: "../report/workflow.rst"
