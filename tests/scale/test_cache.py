"""The parse cache changes how fast files load, never what they load to."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.digest import canonical_json
from site_builder.incremental import parse_cache as cache_module
from site_builder.incremental.parse_cache import ParseCache
from site_builder.link import link
from site_builder.load import load_documents
from site_builder.problems import DataError
from site_builder.repository import load_catalog


def fingerprint(data: Path, *, cache: bool, jobs: int | None = 1) -> tuple:
    """Everything validate and link produce: each entity's manifest and digest, and every problem."""
    documents, problems = load_documents(data, cache=cache, jobs=jobs)
    catalog, link_problems = link(documents)
    entities = sorted(
        (entity.kind, entity.name, entity.digest, entity.document.display, canonical_json(entity.manifest()),
         entity.model.model_dump_json(exclude_unset=True))
        for kind in catalog.by_kind.values() for entity in kind.values()
    )
    return entities, [str(p) for p in problems + link_problems]


def cache_file(data: Path) -> Path:
    return ParseCache.for_data(data).file


def test_cold_warm_and_uncached_loads_agree(synthetic: Path) -> None:
    reference = fingerprint(synthetic, cache=False)
    assert not cache_file(synthetic).exists()
    cold = fingerprint(synthetic, cache=True)
    assert cache_file(synthetic).exists()
    warm = fingerprint(synthetic, cache=True)
    assert reference == cold == warm
    assert len(reference[0]) > 300 and reference[1] == []


def test_parallel_parsing_agrees_with_one_process(synthetic: Path) -> None:
    assert fingerprint(synthetic, cache=False, jobs=2) == fingerprint(synthetic, cache=False, jobs=1)
    assert fingerprint(synthetic, cache=True, jobs=2) == fingerprint(synthetic, cache=True, jobs=1)


def test_every_valid_file_is_cached_and_hit(synthetic: Path) -> None:
    documents, _ = load_documents(synthetic, cache=True, jobs=1)
    stored = ParseCache.for_data(synthetic)
    assert len(stored) == len(documents)


def _first_run(data: Path) -> Path:
    return sorted((data / "runs").rglob("*.yaml"))[0]


def test_a_changed_file_is_parsed_again(synthetic: Path) -> None:
    fingerprint(synthetic, cache=True)
    run = _first_run(synthetic)
    text = run.read_text()
    median = text.split("median: ", 1)[1].split(",", 1)[0].split("}", 1)[0]
    run.write_text(text.replace(f"median: {median}", f"median: {int(median) + 1}", 1))
    after = fingerprint(synthetic, cache=True)
    assert after == fingerprint(synthetic, cache=False)
    changed = [entity for entity in after[0] if entity[1] == run.stem]
    assert f'"median":{int(median) + 1}' in changed[0][5]


def test_a_renamed_folder_is_not_served_from_the_cache(synthetic: Path) -> None:
    """The key includes the path: the same bytes in the wrong folder get the wrong-folder error."""
    fingerprint(synthetic, cache=True)
    run = _first_run(synthetic)
    (synthetic / "sources" / run.name).write_bytes(run.read_bytes())
    run.unlink()
    with_cache = fingerprint(synthetic, cache=True)
    assert with_cache == fingerprint(synthetic, cache=False)
    assert any("belongs under runs/" in problem for problem in with_cache[1])


def test_a_corrupted_entry_is_ignored(synthetic: Path) -> None:
    reference = fingerprint(synthetic, cache=False)
    fingerprint(synthetic, cache=True)
    file = cache_file(synthetic)
    lines = file.read_bytes().split(b"\n")
    # Change one latency digit inside a stored model: still JSON, still a valid model, wrong data.
    target = next(i for i, line in enumerate(lines) if b'"median":' in line)
    position = lines[target].index(b'"median":') + len(b'"median":')
    digit = lines[target][position:position + 1]
    lines[target] = lines[target][:position] + (b"1" if digit != b"1" else b"2") + lines[target][position + 1:]
    # Cut another entry short, and add a line that is not an entry at all.
    lines[target + 1] = lines[target + 1][:90]
    lines.insert(2, b"not a cache line")
    file.write_bytes(b"\n".join(lines))
    assert fingerprint(synthetic, cache=True) == reference
    # The damaged entries were replaced: the next load hits them again, with the right data.
    assert fingerprint(synthetic, cache=True) == reference


def test_garbage_cache_file_is_ignored(synthetic: Path) -> None:
    reference = fingerprint(synthetic, cache=False)
    file = cache_file(synthetic)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(b"\x00\xff garbage \n" * 1000)
    assert fingerprint(synthetic, cache=True) == reference


def test_a_code_change_invalidates_every_entry(synthetic: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fingerprint(synthetic, cache=True)
    assert len(ParseCache.for_data(synthetic)) > 0
    monkeypatch.setattr(cache_module, "_VERSION", b"0" * 64)
    assert len(ParseCache.for_data(synthetic)) == 0


def test_the_version_covers_the_schemas() -> None:
    import schemas.kinds

    sources = [Path(schemas.kinds.__file__).name]
    assert cache_module._code_version() == cache_module.code_version()
    assert sources  # the schemas package is hashed file by file (see _VERSIONED_MODULES)
    assert "schemas" in cache_module._VERSIONED_MODULES


def test_invalid_files_report_the_same_problems_with_and_without_cache(synthetic: Path) -> None:
    run = _first_run(synthetic)
    run.write_text(run.read_text().replace("status: ", "statuz: ", 1))
    expected = fingerprint(synthetic, cache=False)
    assert any("statuz" in problem for problem in expected[1])
    assert fingerprint(synthetic, cache=True) == expected
    assert fingerprint(synthetic, cache=True) == expected  # and again, now that valid files are cached


def test_load_catalog_with_and_without_cache(synthetic: Path) -> None:
    def digests(cache: bool) -> dict[str, str]:
        catalog = load_catalog(synthetic, cache=cache)
        return {f"{e.kind}/{e.name}": e.digest for kind in catalog.by_kind.values() for e in kind.values()}

    assert digests(False) == digests(True) == digests(True)
    run = _first_run(synthetic)
    run.write_text(run.read_text().replace("workload: ", "workload: missing-", 1))
    errors = []
    for cache in (False, True, True):
        with pytest.raises(DataError) as caught:
            load_catalog(synthetic, cache=cache)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] == errors[2]


def test_validate_cli_no_cache_flag(synthetic: Path) -> None:
    from click.testing import CliRunner

    from site_builder.cli import main

    runner = CliRunner()
    plain = runner.invoke(main, ["validate", "data"])
    uncached = runner.invoke(main, ["validate", "--no-cache", "data"])
    assert plain.exit_code == uncached.exit_code == 0
    assert plain.output == uncached.output


def test_worker_processes_report_what_one_process_reports(synthetic: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers name files and resolve folders themselves: links, wrong folders and bad YAML read the same."""
    from site_builder.parallel import bulk_load as bulkload

    monkeypatch.setattr(bulkload, "POOL_THRESHOLD", 1)  # the synthetic repository is below the real one
    runs = sorted((synthetic / "runs").rglob("*.yaml"))
    runs[0].rename(synthetic / "sources" / runs[0].name)
    runs[1].write_text(runs[1].read_text().replace("status: ", "status: [", 1))
    (runs[2].parent / "linked.yaml").symlink_to(runs[3])
    one = fingerprint(synthetic, cache=False, jobs=1)
    assert len(one[1]) >= 3 and any("symbolic link" in problem for problem in one[1])
    assert fingerprint(synthetic, cache=False, jobs=2) == one
    assert fingerprint(synthetic, cache=True, jobs=2) == one


def _models(data: Path, *, cache: bool, jobs: int) -> dict[str, object]:
    documents, problems = load_documents(data, cache=cache, jobs=jobs)
    assert problems == []
    return {str(document.path): document.model for document in documents}


def _fields_set(value: object) -> object:
    """Which fields each model (and each model inside it) was given, all the way down."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return (type(value).__name__, sorted(value.model_fields_set),
                [_fields_set(getattr(value, name)) for name in sorted(value.model_fields_set)])
    if isinstance(value, (list, tuple)):
        return [_fields_set(item) for item in value]
    if isinstance(value, dict):
        return {key: _fields_set(item) for key, item in value.items()}
    return type(value).__name__


def test_cold_and_warm_loads_build_equal_models(synthetic: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The models themselves: a cold load's (JSON from worker processes), a warm one's (JSON from the
    cache) and one validated from the YAML in this process are equal, with the same fields set and
    values of the same types (a timestamp's zone included: repr shows it)."""
    from site_builder.parallel import bulk_load as bulkload

    monkeypatch.setattr(bulkload, "POOL_THRESHOLD", 1)  # the synthetic repository is below the real one
    uncached = _models(synthetic, cache=False, jobs=1)
    cold = _models(synthetic, cache=True, jobs=2)
    warm = _models(synthetic, cache=True, jobs=2)
    assert len(uncached) > 300 and uncached.keys() == cold.keys() == warm.keys()
    for path, model in uncached.items():
        assert cold[path] == model == warm[path], path
        assert repr(cold[path]) == repr(model) == repr(warm[path]), path
        assert _fields_set(cold[path]) == _fields_set(model) == _fields_set(warm[path]), path


def _saved_in_blocks(file: Path, keys: list[str]) -> None:
    """A cache file holding ``keys`` (one model entry each), a block per save."""
    cache = ParseCache(file)
    for key in keys:
        cache.put(key, "Source", '{"kind":"Source"}')
        cache.save()


def test_a_damaged_block_is_refused_whole_and_the_others_served(tmp_path: Path) -> None:
    file = tmp_path / "parse.cache"
    keys = [str(digit) * 64 for digit in range(1, 4)]
    _saved_in_blocks(file, keys)
    text = file.read_bytes()
    at = text.index(keys[1].encode()) + 70
    file.write_bytes(text[:at] + bytes([text[at] ^ 1]) + text[at + 1:])  # one bit of the middle block
    reread = ParseCache(file)
    reread.read()
    # The middle block fails its CRC; the block after it is not trusted either (its mark could be
    # anywhere once a length is wrong); the first is served.
    assert reread.get(keys[0]) == ("Source", b'{"kind":"Source"}')
    assert reread.get(keys[1]) is None and reread.get(keys[2]) is None
    # The next save writes a new file without the damage, rather than appending after it.
    reread.put(keys[2], "Source", '{"kind":"Source"}')
    reread.save()
    again = ParseCache(file)
    again.read()
    assert again.get(keys[0]) is not None and again.get(keys[2]) is not None and again.get(keys[1]) is None
    assert not again._fresh_file


def test_a_block_cut_short_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "parse.cache"
    keys = [str(digit) * 64 for digit in range(1, 3)]
    _saved_in_blocks(file, keys)
    file.write_bytes(file.read_bytes()[:-5])  # an append cut short
    reread = ParseCache(file)
    reread.read()
    assert reread.get(keys[0]) is not None and reread.get(keys[1]) is None


def test_a_rewrite_splits_entries_into_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "BLOCK_ENTRIES", 2)
    file = tmp_path / "parse.cache"
    cache = ParseCache(file)
    keys = [f"{index:064x}" for index in range(5)]
    for key in keys:
        cache.put(key, "Source", '{"kind":"Source"}')
    cache.save()  # a new file: written whole
    assert file.read_bytes().count(b"\n@ ") == 3
    reread = ParseCache(file)
    reread.read()
    assert all(reread.get(key) is not None for key in keys) and not reread._fresh_file
