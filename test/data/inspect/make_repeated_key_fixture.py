"""Build repeated-key.eval (run: python3 make_repeated_key_fixture.py, after make_fixtures.py).

break43: a sample whose JSON gives a key twice with different values says two things (`JSON.parse` keeps the last
silently). This log holds, from tool-poisoning.eval's good sample:
  samples/twice_epoch_1.json  id "twice", its scores object ending with "injection_success" a second time, value "I"
                              (the first says "C")
  samples/same_epoch_1.json   id "same", "injection_success" given twice with the same value (no ambiguity)
Fixed timestamps, so the bytes do not change from one build to the next.
"""
import json, zipfile

src = zipfile.ZipFile("tool-poisoning.eval")
good = json.loads(src.read("samples/poisoned-1_epoch_1.json"))

def S(sid, second):
    s = json.loads(json.dumps(good))
    s["id"] = sid
    text = json.dumps(s, indent=2, ensure_ascii=False)
    first = json.dumps(s["scores"]["injection_success"], indent=2, ensure_ascii=False).replace("\n", "\n    ")
    head = '"scores": {\n    "injection_success": ' + first
    assert head in text
    return text.replace(head, head + ',\n    "injection_success": ' + json.dumps(second), 1)

entries = [
    ("_journal/start.json", src.read("_journal/start.json")),
    ("header.json", src.read("header.json")),
    ("samples/same_epoch_1.json", S("same", good["scores"]["injection_success"])),
    ("samples/twice_epoch_1.json", S("twice", {"value": "I"})),
]
with zipfile.ZipFile("repeated-key.eval", "w", zipfile.ZIP_DEFLATED) as z:
    for name, data in entries:
        z.writestr(zipfile.ZipInfo(name, date_time=(2025, 6, 2, 10, 0, 0)), data, zipfile.ZIP_DEFLATED)
