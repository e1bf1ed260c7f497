import { otlpMessageTypes, otlpMetricsRoot } from "../src/otlp-proto.ts";
const T = otlpMessageTypes.exportRequest;
const obj = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: "m", gauge: { dataPoints: [{ timeUnixNano: "1700000000123456789", asInt: "-5", attributes: [{key:"a", value:{bytesValue: new Uint8Array([1,2])}}] }] } }, { name: "h", histogram: { dataPoints: [{ count: "3", sum: 0, bucketCounts: ["1","2"], explicitBounds: [1.5] }] } }] }] }] };
const msg = T.fromObject(obj);
const bytes = T.encode(msg).finish();
console.log(Buffer.from(bytes).toString("hex"));
const dec = T.decode(bytes);
console.log(JSON.stringify(T.toObject(dec, { longs: String, enums: Number, defaults: false })));
const o = T.toObject(dec, { longs: String, enums: Number, defaults: false }) as any;
console.log(o.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].attributes[0].value.bytesValue);
console.log("hist", o.resourceMetrics[0].scopeMetrics[0].metrics[1].histogram.dataPoints[0]);
for (const cut of [1, 5, bytes.length - 1]) { try { T.decode(bytes.subarray(0, cut)); console.log("cut ok", cut) } catch (e) { console.log("cut", cut, e.constructor.name, e.message) } }
// wrong wire type: field 1 varint
try { console.log(T.toObject(T.decode(Uint8Array.from([0x08, 0x01])))) } catch (e) { console.log("wt", e.constructor.name, e.message) }
try { console.log(T.toObject(T.decode(Uint8Array.from([0x0f, 0x01])))) } catch (e) { console.log("wt7", e.constructor.name, e.message) }
try { console.log(T.toObject(T.decode(Buffer.from("hello world, not protobuf")))) } catch (e) { console.log("garbage", e.constructor.name, e.message) }
// deep nesting
let deep = new Uint8Array(0);
