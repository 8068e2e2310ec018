"""Reading config files and merging their ``include`` lists.

A config may list further files under ``include`` whose studies, figures and tasks are added
(the default config keeps each model's in its own file); :func:`merge_includes` merges them
(:func:`flocklab.pipeline.load_config` reads, merges and validates).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from flocklab.core.parameters import ConfigError

#: Config sections whose named entries an included file adds to.
MERGED_SECTIONS = ("studies", "figures", "tasks")


def read_yaml(path: str | Path) -> dict:
    """The mapping in YAML file ``path`` (empty for an empty file).

    Raises
    ------
    ConfigError
        A missing or unreadable file, a YAML syntax error (with the file, line and column)
        or a document that is not a mapping.
    """
    try:
        with open(path, encoding="utf-8") as stream:
            document = yaml.safe_load(stream)
    except FileNotFoundError:
        raise ConfigError(f"no config file {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read config file {path}: {error}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{where}: YAML syntax error: {problem}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: a config is a mapping of keys (studies, figures, ...), "
                          f"not a {type(document).__name__}")
    return document


def merge_includes(config: dict, base_dir: str | Path) -> dict:
    """Merge the files listed under ``include`` into ``config``, in place.

    Their studies, figures and tasks are added; a name defined twice, or any other top-level
    key in an included file, is an error naming the file. An included file may include
    others (relative to its own directory).

    Parameters
    ----------
    config : dict
        Parsed YAML; its ``include`` key is removed.
    base_dir : path
        Directory the ``include`` paths are relative to (the config file's).

    Returns
    -------
    dict
        ``config``.

    Raises
    ------
    ConfigError
        A missing file, a name defined twice or a key an included file may not set.
    """
    for position, name in enumerate(config.pop("include", None) or []):
        path = Path(base_dir) / name
        if not path.is_file():
            raise ConfigError(f"config key 'include[{position}]': no file {path}")
        part = read_yaml(path)
        merge_includes(part, path.parent)
        for key, section in part.items():
            if key not in MERGED_SECTIONS:
                raise ConfigError(f"config key 'include[{position}]': {name} sets '{key}'; an "
                                  f"included file may set only {', '.join(MERGED_SECTIONS)}")
            target = config.setdefault(key, {})
            for entry, value in (section or {}).items():
                if entry in target:
                    raise ConfigError(f"config key '{key}.{entry}': defined twice (again in "
                                      f"{name})")
                target[entry] = value
    return config
