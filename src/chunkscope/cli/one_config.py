"""The options and start of a command run on one configuration of one dataset (``explain``, ``whatif``,
``fragility``): the dataset's inputs, a single chunker with the retriever and delivery options, the outputs."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from chunkscope.cli import common
from chunkscope.io.dataset import Dataset
from chunkscope.results import Config


def add_one_config_options(parser: argparse.ArgumentParser) -> None:
    """The inputs, one configuration (``--chunker`` given once) and the report outputs."""
    common.add_input_options(parser)
    common.add_config_options(parser, many_chunkers=False)
    common.add_output_options(parser)


def one_config_and_dataset(
    args: argparse.Namespace, check: Callable[[Config], object] | None = None
) -> tuple[Config, Dataset]:
    """The configuration the options name and the dataset, loaded after the configuration, ``check`` (a test of
    the configuration that raises, e.g. that it has neighbours) and the output paths passed: a bad spec or path
    fails before a large dataset is read."""
    config = common.configs_from_args(args, [args.chunker])[0]
    if check is not None:
        check(config)
    common.check_outputs(args, [config])
    return config, common.load_from_args(args)
