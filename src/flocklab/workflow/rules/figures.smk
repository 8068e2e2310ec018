# Stage 3: figures and animations, each marked for the HTML report with a caption. Inputs and
# captions come from the figure's kind (common.smk: FIGURE_CONTEXT).


rule figure:
    input:
        lambda wc: figure_files(wc.figure),
    output:
        report(
            paths.figure_file("{figure}", config["plot"]["formats"][0]),
            caption="../report/figure.rst",
            category=lambda wc: report_group(wc.figure)[0],
            subcategory=lambda wc: report_group(wc.figure)[1],
            labels=lambda wc: {"figure": figure_title(wc.figure)},
        ),
        [paths.figure_file("{figure}", ext) for ext in config["plot"]["formats"][1:]],
    params:
        spec=lambda wc: FIGURES[wc.figure],
        dpi=config["plot"]["dpi"],
        caption=lambda wc: figure_caption(wc.figure),
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("figures", "{figure}"),
    localrule: True
    script:
        "../scripts/figure.py"


rule animation:
    input:
        lambda wc: figure_files(wc.animation),
    output:
        gif=report(
            paths.figure_file("{animation}", "gif"),
            caption="../report/figure.rst",
            category=lambda wc: report_group(wc.animation)[0],
            subcategory=lambda wc: report_group(wc.animation)[1],
            labels=lambda wc: {"figure": f"{figure_title(wc.animation)} (animation)"},
        ),
        **({"mp4": paths.figure_file("{animation}", "mp4")} if HAVE_FFMPEG else {}),
    params:
        spec=lambda wc: ANIMATIONS[wc.animation],
        dpi=config["plot"]["animation_dpi"],
        caption=lambda wc: figure_caption(wc.animation),
    conda:
        "../envs/flocklab.yaml"
    log:
        paths.log_file("figures", "{animation}"),
    localrule: True
    script:
        "../scripts/animation.py"
