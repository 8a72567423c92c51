import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { Item } from "./table-shape";

// DynamoDB item sizes: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
const DOCUMENT_OVERHEAD_BYTES = 3;
const DOCUMENT_ELEMENT_BYTES = 1;
const BOOLEAN_OR_NULL_BYTES = 1;
const NUMBER_BASE_BYTES = 1;
const SIGNIFICANT_DIGITS_PER_BYTE = 2;

const utf8 = (text: string) => Buffer.byteLength(text, "utf8");

/** About 1 byte per two significant digits, plus 1. */
function numberBytes(text: string): number {
  const mantissa = text.split(/e/i)[0]!.replace(/[-+.]/g, "");
  const significant = mantissa.replace(/^0+/, "").replace(/0+$/, "");
  return Math.ceil(Math.max(1, significant.length) / SIGNIFICANT_DIGITS_PER_BYTE) + NUMBER_BASE_BYTES;
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return BOOLEAN_OR_NULL_BYTES;
  if (value.SS !== undefined) return value.SS.reduce((sum, text) => sum + utf8(text), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, text) => sum + numberBytes(text), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, bytes) => sum + bytes.byteLength, 0);
  if (value.M !== undefined)
    return Object.entries(value.M).reduce(
      (sum, [name, member]) => sum + DOCUMENT_ELEMENT_BYTES + utf8(name) + valueBytes(member),
      DOCUMENT_OVERHEAD_BYTES,
    );
  if (value.L !== undefined)
    return value.L.reduce((sum, member) => sum + DOCUMENT_ELEMENT_BYTES + valueBytes(member), DOCUMENT_OVERHEAD_BYTES);
  throw new Error(`no size rule for the attribute value ${JSON.stringify(value)}`);
}

/** The item's size as DynamoDB bills it: attribute names plus values; 0 for no item. */
export const itemBytes = (item: Item | null | undefined): number =>
  item ? Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueBytes(value), 0) : 0;
