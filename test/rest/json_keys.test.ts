import t from "tap";
import { hasDuplicateKeys } from "../../adapters/rest/json_keys.ts";

t.test("duplicate keys are found in any object, escapes and strings notwithstanding", async (t) => {
  const table: Array<[string, boolean]> = [
    ['{"a":1,"a":2}', true],
    ['{"a":1,"b":{"a":2}}', false],
    ['[{"a":1},{"a":2}]', false],
    ['{"a":"x,\\"a\\":","b":1}', false],
    ['{"\\u0061":1,"a":2}', true],
    ['{"a":[1,{"b":1,"b":2}]}', true],
    ['{"a":{"b":1},"c":2,"a":3}', true],
    ['{"a":[1,2],"b":3}', false],
    ["{}", false],
    ['[1,2,"a","a"]', false],
    ['"a"', false],
  ];
  for (const [text, expected] of table) t.equal(hasDuplicateKeys(text), expected, text);
});
