"""Reading HELM run directories (crfm-helm ``helm-run`` output). Pure: files in, plain records out.

A run directory (``benchmark_output/runs/<suite>/<run name>/``) holds ``run_spec.json`` (scenario,
adapter, model) and ``scenario_state.json`` (``adapter_spec`` and ``request_states``: each
instance with its input and references, the request sent and the model's completions); HELM also
writes ``scenario.json``, ``stats.json`` and ``per_instance_stats.json``, which are not needed here.
A suite directory holds several run directories; they must all run the same scenario.

- a question per evaluation instance (``train_trial_index`` 0, not perturbed): id = instance id;
  a ``PassageQuestionInput`` text (``[Passage: ]<passage><sep>Question: <question>``, e.g.
  ``natural_qa_openbook_longans``) gives context and question, any other input is an open-domain
  question (empty context); the answers are the references tagged ``correct``;
- a system per run, named by its model (``adapter_spec.model``, else the deployment), answering
  with its first completion; failed requests give no prediction (they are counted);
- metadata kept: run spec name, scenario spec, adapter spec and model deployment.

Tried with crfm-helm 0.5.16 (see tests/fixtures/helm/make.sh).
"""

from __future__ import annotations

import json
from pathlib import Path

from annotation.interchange import InterchangeError

REQUIRED = ("run_spec.json", "scenario_state.json")
QUESTION_MARK = "Question: "
PASSAGE_PREFIXES = ("Passage: ",)


def run_directories(path):
    """The run directories under ``path``: itself if it is one, else its subfolders that are.
    A subfolder with some but not all of the required files is an error (a partial run)."""
    path = Path(path)
    if not path.is_dir():
        raise InterchangeError("not a directory (expected a HELM run or suite directory)", path)
    if any((path / name).exists() for name in REQUIRED):
        _check_complete(path)
        return [path]
    runs = []
    for child in sorted(p for p in path.iterdir() if p.is_dir()):
        if any((child / name).exists() for name in REQUIRED):
            _check_complete(child)
            runs.append(child)
    if not runs:
        raise InterchangeError(f"no HELM run directory here (none holds {' and '.join(REQUIRED)})", path)
    return runs


def _check_complete(run):
    missing = [name for name in REQUIRED if not (run / name).is_file()]
    if missing:
        raise InterchangeError(f"partial HELM run directory: {', '.join(missing)} missing", run)


def _load(file):
    try:
        with open(file, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise InterchangeError(f"malformed JSON ({exc.msg} at column {exc.colno})", file, exc.lineno) from None
    except UnicodeDecodeError as exc:
        raise InterchangeError(f"not valid UTF-8 ({exc.reason})", file) from None


def _get(obj, keys, file, *, where):
    for key in keys:
        if not isinstance(obj, dict) or key not in obj:
            raise InterchangeError("missing required field", file, where, field=".".join(keys))
        obj = obj[key]
    return obj


def split_input(text):
    """``(context, question)`` of an instance input: a passage-question text is split at its last
    ``Question: ``; anything else is a question without passage."""
    at = text.rfind(QUESTION_MARK)
    if at <= 0 or text[at - 1] != "\n":
        return "", text.strip()
    passage = text[:at].rstrip("\n")
    for prefix in PASSAGE_PREFIXES:
        passage = passage.removeprefix(prefix)
    return passage, text[at + len(QUESTION_MARK) :].strip()


def read_run(run):
    """One run directory -> ``{"name", "system", "scenario", "meta", "instances": {id: record},
    "answers": {id: text}, "failed": n}``."""
    run = Path(run)
    spec_file, state_file = run / "run_spec.json", run / "scenario_state.json"
    spec, state = _load(spec_file), _load(state_file)
    adapter = (
        spec.get("adapter_spec")
        if isinstance(spec.get("adapter_spec"), dict)
        else _get(state, ["adapter_spec"], state_file, where=None)
    )
    system = adapter.get("model") or adapter.get("model_deployment")
    if not isinstance(system, str) or not system.strip():
        raise InterchangeError("no model named in adapter_spec", spec_file, None, field="adapter_spec.model")
    scenario = _get(spec, ["scenario_spec"], spec_file, where=None)
    states = _get(state, ["request_states"], state_file, where=None)
    if not isinstance(states, list) or not states:
        raise InterchangeError("no request_states: the run has no instance", state_file, None, field="request_states")
    instances, answers, failed = {}, {}, 0
    for i, rs in enumerate(states):
        where = f"request_states[{i}]"
        instance = _get(rs, ["instance"], state_file, where=where)
        if rs.get("train_trial_index", 0) != 0 or instance.get("perturbation"):
            continue
        qid = _get(instance, ["id"], state_file, where=where)
        text = _get(instance, ["input", "text"], state_file, where=where)
        references = _get(instance, ["references"], state_file, where=where)
        if not isinstance(qid, str) or not isinstance(text, str) or not isinstance(references, list):
            raise InterchangeError(
                "expected instance id and input text as strings, references as a list", state_file, where
            )
        context, question = split_input(text)
        correct = [
            r["output"]["text"]
            for r in references
            if isinstance(r, dict)
            and "correct" in (r.get("tags") or [])
            and isinstance(r.get("output"), dict)
            and isinstance(r["output"].get("text"), str)
        ]
        meta = {"helm_split": instance.get("split")}
        if instance.get("sub_split"):
            meta["helm_sub_split"] = instance["sub_split"]
        instances[qid] = {"id": qid, "context": context, "question": question, "answers": correct, "meta": meta}
        result = rs.get("result") or {}
        completions = result.get("completions") if isinstance(result, dict) else None
        if not result.get("success") or not completions or not isinstance(completions[0].get("text"), str):
            failed += 1
            continue
        answers[qid] = completions[0]["text"].strip()
    return {
        "name": spec.get("name") or run.name,
        "system": system.strip(),
        "scenario": scenario,
        "failed": failed,
        "meta": {
            "helm": {
                "run_spec": spec.get("name") or run.name,
                "scenario_spec": scenario,
                "adapter_spec": adapter,
                "model_deployment": adapter.get("model_deployment"),
            }
        },
        "instances": instances,
        "answers": answers,
    }


def read_helm(path):
    """A run or suite directory -> ``{"questions": [records], "runs": [read_run(...) without instances]}``.

    Every run must have the same scenario spec and a different model; the same instance id must
    have the same input and references in every run. Raises ``InterchangeError`` otherwise."""
    runs = [read_run(r) for r in run_directories(path)]
    first = runs[0]
    questions, systems = {}, {}
    for run in runs:
        if run["scenario"] != first["scenario"]:
            raise InterchangeError(
                f"run {run['name']!r} has another scenario than run {first['name']!r}: import one scenario per corpus",
                path,
            )
        if run["system"] in systems:
            raise InterchangeError(
                f"model {run['system']!r} appears in two runs ({systems[run['system']]!r} and {run['name']!r})", path
            )
        systems[run["system"]] = run["name"]
        for qid, record in run.pop("instances").items():
            seen = questions.setdefault(qid, record)
            if (seen["context"], seen["question"], seen["answers"]) != (
                record["context"],
                record["question"],
                record["answers"],
            ):
                raise InterchangeError(f"instance {qid!r} differs between runs", path)
    return {"questions": list(questions.values()), "runs": runs}
