"""Re-derives the reasons of known-failures.txt from an independent validator.

    python3 relabel-known-failures.py CORPUS_DIR

For each listed example, validates the value against its schema with python jsonschema
(Draft7Validator, `$ref`s resolved in the document) and rewrites the reason as the kind
of its deepest error (the longest instance path, then jsonschema's relevance order). An
example the validator accepts is marked "VALID per jsonschema": the generator, not the
document, is wrong there. Prints each reason that changed.
"""
import json, os, re, sys, warnings
warnings.filterwarnings("ignore")
from jsonschema import Draft7Validator, RefResolver
from jsonschema.exceptions import relevance

here = os.path.dirname(os.path.abspath(__file__))
corpus = sys.argv[1]
known = os.path.join(here, 'known-failures.txt')
# The document ids, from the list the tests use.
listing = open(os.path.join(here, '../../codegen/src/corpus.rs')).read()
docs = dict(re.findall(r'\("(D\d+)",\s*"([^"]+)"\)', listing.replace("\n", " ")))

def ptr(doc, p):
    v = doc
    for t in [t for t in p.split('/') if t != ''][0:]:
        t = t.replace('~1', '/').replace('~0', '~')
        v = v[int(t)] if isinstance(v, list) else v[t]
    return v

def deref(doc, v):
    while isinstance(v, dict) and '$ref' in v and v['$ref'].startswith('#'):
        v = ptr(doc, v['$ref'][1:])
    return v

LABELS = {
    'type': 'wrong JSON type', 'required': 'a required member is missing',
    'additionalProperties': 'a member additionalProperties: false forbids',
    'oneOf': 'matches no branch', 'anyOf': 'matches no branch',
    'minItems': 'wrong array length or shape', 'maxItems': 'wrong array length or shape',
    'items': 'wrong array length or shape', 'additionalItems': 'wrong array length or shape',
    'enum': 'a value outside its enum', 'const': 'a value other than its const',
    'pattern': 'does not match its pattern',
}

def schema_of(doc, origin):
    p = origin.lstrip('#')
    m = re.match(r'^/methods/(\d+)/examples/(\d+)/(params/(\d+)|result)/value$', p)
    if m:
        method = deref(doc, ptr(doc, f'/methods/{m[1]}'))
        if m[3] == 'result':
            return '/methods/%s/result' % m[1], deref(doc, method['result'])['schema']
        pairing = deref(doc, ptr(doc, f'/methods/{m[1]}/examples/{m[2]}'))
        example = deref(doc, pairing['params'][int(m[4])])
        params = [deref(doc, q) for q in method['params']]
        by_name = [q for q in params if q.get('name') == example.get('name')]
        param = by_name[0] if by_name else params[int(m[4])]
        return None, param['schema']
    m = re.match(r'^(.*)/(examples/\d+|default)$', p)
    return None, ptr(doc, m[1])

def deepest(validator, value):
    todo = list(validator.iter_errors(value)); found = []
    while todo:
        e = todo.pop(); found.append(e); todo.extend(e.context or [])
    if not found:
        return None
    return max(found, key=lambda e: (len(e.absolute_path), relevance(e)))

cache = {}
out = []
changed = 0
for line in open(known).read().split('\n'):
    if line.startswith('#') or not line.strip():
        out.append(line); continue
    key, reason = line.split('\t')
    did, origin = key.split(' ', 1)
    path = docs[did]
    if path not in cache:
        cache[path] = json.load(open(f'{corpus}/{path}'))
    doc = cache[path]
    _, schema = schema_of(doc, origin)
    value = ptr(doc, origin.lstrip('#'))
    v = Draft7Validator(schema, resolver=RefResolver.from_schema(doc))
    e = deepest(v, value)
    new = 'VALID per jsonschema' if e is None else 'invalid against its schema: ' + LABELS.get(e.validator, e.validator)
    if new != reason:
        changed += 1
        print(f'{key}: {reason} -> {new}', file=sys.stderr)
    out.append(f'{key}\t{new}')
open(known, 'w').write('\n'.join(out))
print(f'{changed} labels changed', file=sys.stderr)
