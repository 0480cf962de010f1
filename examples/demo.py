"""A small file to try treecomplete on: `treecomplete complete examples/demo.py:14:31`."""

import os


def read_settings(settings_path):
    with open(settings_path, encoding="utf-8") as handle:
        return handle.read()


def main():
    config_directory = os.path.expanduser("~/.config")
    settings = read_settings(os.path.join(config_directory, "demo.toml"))
    print(settings, config_dir)
