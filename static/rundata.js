/* The runs' step data. Each <run>.steps.js (site/stepdata.py) stores its run's steps as JSON,
   DEFLATE-compressed and base64-encoded, in window.RG_RUN_STEPS[run id]: a script file, so it
   loads from file:// and a zip where fetch() does not, at about a quarter of the bytes.
   window.rgRunSteps(id) inflates one with fflate (assets/fflate.js) the first time it is asked
   for and parses it as JSON (data only: nothing in it runs); null when it is not loaded. */
(function () {
  "use strict";
  var cache = Object.create(null);
  /* A value packed by site/stepdata.py's pack_json (base64 of raw DEFLATE of its JSON). */
  window.rgUnpack = function (packed) {
    var bin = atob(packed), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i += 1) { bytes[i] = bin.charCodeAt(i); }
    return JSON.parse(fflate.strFromU8(fflate.inflateSync(bytes)));
  };
  window.rgRunSteps = function (id) {
    if (id in cache) { return cache[id]; }
    var packed = (window.RG_RUN_STEPS || {})[id];
    if (typeof packed !== "string") { return null; }
    cache[id] = window.rgUnpack(packed);
    return cache[id];
  };
})();
