/* json.h: a small, strict JSON reader for the `ndx` tool's layout arguments.
 *
 * It reads RFC 8259 JSON and refuses, with the byte offset of the fault,
 * anything a careless reader would let through: numbers that are not exact
 * int64 integers (fractions, exponents, values past int64, leading zeros), a
 * key given twice in one object, trailing commas, anything after the value,
 * nesting deeper than JSON_MAX_DEPTH, raw control characters or invalid UTF-8
 * in strings, and "\u0000" (strings come back NUL-terminated).
 *
 * The text is parsed into a tree of values held by a json_doc; values refer to
 * each other by index, so the tree is one allocation of nodes and one of
 * string bytes, both freed by json_free. */
#ifndef NDX_TOOL_JSON_H
#define NDX_TOOL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest nesting of arrays and objects read: the layout form needs 2. */
#define JSON_MAX_DEPTH 16
/* Most values one document holds, and the longest text read. */
#define JSON_MAX_VALUES 65536
#define JSON_MAX_TEXT (1 << 20)
/* Most members one object holds (each key is checked against the others). */
#define JSON_MAX_MEMBERS 1024

typedef enum json_kind {
  JSON_NULL,
  JSON_FALSE,
  JSON_TRUE,
  JSON_INT,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT,
} json_kind;

/* One value. Children of an array or object are a chain: `first` is the first
 * child's index, each child's `next` the following one, -1 ends it. */
typedef struct json_value {
  json_kind kind;
  size_t at;     /* byte offset of the value's first byte in the text */
  int64_t num;   /* JSON_INT */
  size_t str;    /* JSON_STRING: offset of its decoded bytes in the doc's pool */
  size_t key;    /* a member of an object: offset of its decoded key */
  int32_t count; /* JSON_ARRAY, JSON_OBJECT: children */
  int32_t first; /* first child, -1 when none */
  int32_t next;  /* next sibling, -1 when last */
} json_value;

typedef struct json_doc {
  json_value *values; /* values[0] is the root once json_parse succeeded */
  int32_t nvalues, cap;
  char *pool; /* decoded strings and keys, each NUL-terminated */
  size_t pool_used;
  char error[256]; /* "byte N: what is wrong", when json_parse failed */
} json_doc;

/* Parses the `len` bytes of `text` as one JSON value into `doc`, which must
 * be zeroed (json_doc d = {0}) or have been used before.
 * Returns true; or false with doc->error set to "byte N: <reason>" (N counts
 * from 0) and nothing left allocated. Either way json_free(doc) is safe.
 * O(len) time (keys: O(members^2) per object), O(len) memory. */
bool json_parse(json_doc *doc, const char *text, size_t len);

/* Frees what json_parse allocated; the doc can be parsed into again. */
void json_free(json_doc *doc);

/* The decoded text of a JSON_STRING, and the key of an object's member. */
const char *json_str(const json_doc *doc, const json_value *v);
const char *json_key(const json_doc *doc, const json_value *v);

/* The first child of an array or object, and the sibling after `v`; NULL at
 * the end. */
const json_value *json_first(const json_doc *doc, const json_value *v);
const json_value *json_next(const json_doc *doc, const json_value *v);

/* The member of object `obj` named `key`, or NULL. O(members). */
const json_value *json_member(const json_doc *doc, const json_value *obj, const char *key);

/* "null", "false", "true", "an integer", "a string", "an array", "an object". */
const char *json_kind_name(json_kind k);

#endif /* NDX_TOOL_JSON_H */
