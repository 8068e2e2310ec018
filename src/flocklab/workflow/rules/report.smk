# Stage 4: the HTML report (`snakemake --report results/report.html`) shows every output
# marked with report() in the other rules, under this description.


report: "../report/workflow.rst"


rule claims:
    input:
        lambda wc: [path for _, path in claim_sources(wc.model)],
    output:
        report(
            paths.claims_file("{model}"),
            caption="../report/claims.rst",
            category=lambda wc: get_model(wc.model).title,
            subcategory="Claims and verdicts",
            labels=lambda wc: {"figure": f"claims tested on the {wc.model} model"},
        ),
    params:
        sources=lambda wc: claim_sources(wc.model),
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("claims", "{model}"),
    localrule: True
    script:
        "../scripts/claims.py"
