"""Build duplicate-samples.eval (run: python3 make_duplicate_fixture.py, after make_fixtures.py).

Red team 30: two different samples of one log under one id and epoch were read as "the same input given twice" and
the second was never judged. This log holds, from tool-poisoning.eval's good sample:
  samples/dup_epoch_1.json        id "dup", epoch 1 (all 7 messages)
  samples/dup_epoch_1_retry.json  id "dup", epoch 1, only the first 3 messages (another sample under the same id)
  samples/7_epoch_1.json          id 7 (a number)
  samples/7_epoch_1.json          id "7" (a string), under the same entry name (a zip may repeat a name)
  samples/ok_epoch_1.json         id "ok"
Fixed timestamps, so the bytes do not change from one build to the next.
"""
import json, zipfile

src = zipfile.ZipFile("tool-poisoning.eval")
good = json.loads(src.read("samples/poisoned-1_epoch_1.json"))

def S(sid, **mut):
    s = json.loads(json.dumps(good))
    s["id"] = sid
    s.update(mut)
    return json.dumps(s, indent=2, ensure_ascii=False)

entries = [
    ("_journal/start.json", src.read("_journal/start.json")),
    ("header.json", src.read("header.json")),
    ("samples/dup_epoch_1.json", S("dup")),
    ("samples/dup_epoch_1_retry.json", S("dup", messages=good["messages"][:3])),
    ("samples/7_epoch_1.json", S(7)),
    ("samples/7_epoch_1.json", S("7")),
    ("samples/ok_epoch_1.json", S("ok")),
]
import warnings
warnings.simplefilter("ignore")  # "Duplicate name": on purpose
with zipfile.ZipFile("duplicate-samples.eval", "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in entries:
        z.writestr(zipfile.ZipInfo(name, date_time=(2025, 6, 2, 10, 0, 0)), data, zipfile.ZIP_DEFLATED)
