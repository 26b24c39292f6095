/*
 * rates-xl: the Office.js custom functions, one generic adapter for every row of the
 * function table. The server fills CONFIG (the functions and their arities, generated from
 * the table; the batch URL; the time limits); nothing below names a function.
 *
 * Excel calls every dirty cell at once. Each call is queued; after FLUSH_MS of quiet (or
 * MAX_BATCH calls) the queue goes to the server as ONE POST, the batching pattern of
 * Microsoft's "Batch custom function calls for a remote service". The server answers one
 * outcome per call, in order, and each cell's promise settles with its own outcome:
 *   {"value": v}                             -> the number, or the 2-D array that spills
 *   {"error": "invalidValue", "message": m}  -> #VALUE! with our message on hover (bad input)
 *   {"error": "notAvailable", "message": m}  -> #N/A with our message (service, network)
 * Every call also has its own time limit, so no cell can stay #BUSY!.
 */
(function () {
  "use strict";

  var CONFIG = /*@CONFIG@*/ null;

  var queue = [];
  var flushTimer = null;

  function errorFor(code, message) {
    var codes = CustomFunctions.ErrorCode;
    var known = code === "invalidValue" ? codes.invalidValue : codes.notAvailable;
    return new CustomFunctions.Error(known, String(message || "rates-xl: no answer"));
  }

  function settle(call, outcome) {
    if (call.settled) {
      return;
    }
    call.settled = true;
    clearTimeout(call.timer);
    if (outcome && Object.prototype.hasOwnProperty.call(outcome, "value")) {
      call.resolve(outcome.value);
    } else {
      var o = outcome || {};
      call.reject(errorFor(o.error, o.message));
    }
  }

  function settleAll(calls, message) {
    calls.forEach(function (call) {
      settle(call, { error: "notAvailable", message: message });
    });
  }

  function describeFailure(response, body) {
    var detail = body && typeof body.detail === "string" ? body.detail : response.statusText;
    return "rates-xl serve refused the batch (" + response.status + "): " + detail;
  }

  function flush() {
    clearTimeout(flushTimer);
    flushTimer = null;
    var batch = queue;
    queue = [];
    if (batch.length === 0) {
      return;
    }
    var payload = JSON.stringify({
      calls: batch.map(function (call) {
        return { fn: call.fn, args: call.args };
      }),
    });
    fetch(CONFIG.batchUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: payload,
      credentials: "same-origin",
      cache: "no-store",
    })
      .then(function (response) {
        return response
          .json()
          .catch(function () {
            return null;
          })
          .then(function (body) {
            if (!response.ok) {
              settleAll(batch, describeFailure(response, body));
              return;
            }
            var results = body && body.results;
            if (!Array.isArray(results) || results.length !== batch.length) {
              settleAll(batch, "rates-xl serve sent an answer of the wrong shape; calculate again");
              return;
            }
            batch.forEach(function (call, i) {
              settle(call, results[i]);
            });
          });
      })
      .catch(function (error) {
        settleAll(batch, "cannot reach rates-xl serve at " + CONFIG.origin +
          " (is it running?): " + (error && error.message ? error.message : error));
      });
  }

  function push(fn, args) {
    return new Promise(function (resolve, reject) {
      var call = { fn: fn, args: args, resolve: resolve, reject: reject, settled: false };
      call.timer = setTimeout(function () {
        settle(call, {
          error: "notAvailable",
          message: "no answer within " + CONFIG.timeLimitMs / 1000 + " s; calculate again",
        });
      }, CONFIG.timeLimitMs);
      queue.push(call);
      if (queue.length >= CONFIG.maxBatch) {
        flush();
      } else if (flushTimer === null) {
        flushTimer = setTimeout(flush, CONFIG.flushMs);
      }
    });
  }

  // Excel passes the declared arguments, then an invocation object (a plain object: no
  // cell value is one). Drop it, and anything beyond the declared arguments. An omitted
  // optional argument arrives as null or undefined: send null.
  function isInvocation(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function adapter(id, arity) {
    return function () {
      var args = Array.prototype.slice.call(arguments);
      if (args.length > 0 && isInvocation(args[args.length - 1])) {
        args.pop();
      }
      return push(id, args.slice(0, arity).map(function (value) {
        return value === undefined ? null : value;
      }));
    };
  }

  if (typeof CustomFunctions === "undefined") {
    console.error("rates-xl: CustomFunctions is not defined; open this add-in in Excel");
    return;
  }
  Object.keys(CONFIG.functions).forEach(function (id) {
    CustomFunctions.associate(id, adapter(id, CONFIG.functions[id]));
  });
})();
