/*
 * rates-xl: the Office.js custom functions, one generic adapter for every row of the
 * function table. The server fills CONFIG (the functions and their arities, generated from
 * the table; the batch URL; the time limits); nothing below names a function.
 *
 * Excel calls every dirty cell at once. Each call is queued; after FLUSH_MS of quiet (or
 * MAX_BATCH calls) the queue goes to the server as ONE POST, the batching pattern of
 * Microsoft's "Batch custom function calls for a remote service". The server answers one
 * outcome per call, in order, and each cell's promise settles with its own outcome:
 *   {"value": v}                             -> the number, or the 2-D array that spills (a
 *                                               cell {"error": code} in it: that error there)
 *   {"error": "invalidValue", "message": m}  -> #VALUE! with our message on hover (bad input)
 *   {"error": "notAvailable", "message": m}  -> #N/A with our message (service, network)
 * Every call also has its own time limit, so no cell can stay #BUSY!.
 *
 * On a team server (GET /health says mode "team") every POST carries the user's sign-in as
 * `Authorization: Bearer`: the Office single sign-on token (Office.auth.getAccessToken), or
 * the per-user token the administrator issued, pasted once into the task pane (this same
 * page) and kept in localStorage. The task pane shows who is signed in, the team's use and
 * the user's last error (GET /api/me).
 *
 * Live mode: the functions whose answer can be valued as of now stream (`options.stream` in
 * functions.json; CONFIG.streaming). A streaming cell gets its first value through the batch
 * like any other; while the task pane's Live switch is on it then subscribes, and
 * `rates-xl serve` (one Live scheduler for every page, so one cadence and one budget) refetches
 * its answer when its lifetime ends. The page long-polls for the new outcomes and sets each
 * cell with `invocation.setResult`. `onCanceled` (formula deleted or changed, book closed)
 * unsubscribes the cell. A cell valued as of a past time is answered `live: false`: the
 * server never refreshes it.
 */
(function () {
  "use strict";

  var CONFIG = /*@CONFIG@*/ null;

  var queue = [];
  var flushTimer = null;
  var TOKEN_KEY = "rates-xl-token";
  // mode: null until /health answers, then "local" or "team"; sso: a cached SSO token.
  var auth = { mode: null, methods: [], sso: null, ready: null };

  function errorFor(code, message) {
    var codes = CustomFunctions.ErrorCode;
    var known = code === "invalidValue" ? codes.invalidValue : codes.notAvailable;
    return new CustomFunctions.Error(known, String(message || "rates-xl: no answer"));
  }

  // A spill's cell the server sends as {"error": code} (a history's Fill=NA) becomes Excel's
  // own error value in that cell: a returned matrix may hold CustomFunctions.Error objects
  // (CustomFunctionsRuntime 1.2), and an error, unlike text, is skipped by a line chart and
  // seen by a SUM.
  function cellsOf(value) {
    if (!Array.isArray(value)) {
      return value;
    }
    return value.map(function (row) {
      return !Array.isArray(row) ? row : row.map(function (cell) {
        return cell !== null && typeof cell === "object" && cell.error ? errorFor(cell.error, cell.message) : cell;
      });
    });
  }

  function settle(call, outcome) {
    if (call.settled) {
      return;
    }
    call.settled = true;
    clearTimeout(call.timer);
    if (outcome && Object.prototype.hasOwnProperty.call(outcome, "value")) {
      call.resolve(cellsOf(outcome.value));
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

  // -- sign-in (team server) -------------------------------------------------------------
  function whenModeKnown() {
    if (!auth.ready) {
      auth.ready = fetch("/health", { cache: "no-store", credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (health) {
          auth.mode = health.mode === "team" ? "team" : "local";
          auth.methods = health.sign_in || [];
        })
        .catch(function () {
          auth.ready = null; // try again with the next batch
          auth.mode = "local";
        });
    }
    return auth.ready;
  }

  function ssoToken(interactive) {
    if (auth.methods.indexOf("sso") < 0 || typeof Office === "undefined" || !Office.auth) {
      return Promise.resolve(null);
    }
    if (auth.sso && !interactive) {
      return Promise.resolve(auth.sso);
    }
    return Office.auth
      .getAccessToken({ allowSignInPrompt: !!interactive, allowConsentPrompt: !!interactive,
                        forMSGraphAccess: false })
      .then(function (token) {
        auth.sso = token;
        return token;
      })
      .catch(function () {
        return null; // not signed in to Office, or no consent yet: the task pane offers sign-in
      });
  }

  function bearer(interactive) {
    return whenModeKnown().then(function () {
      if (auth.mode !== "team") {
        return null;
      }
      return ssoToken(interactive).then(function (token) {
        if (token) {
          return token;
        }
        var stored = null;
        try {
          stored = window.localStorage.getItem(TOKEN_KEY);
        } catch (e) {
          stored = null;
        }
        return auth.methods.indexOf("token") >= 0 ? stored : null;
      });
    });
  }

  function flush() {
    clearTimeout(flushTimer);
    flushTimer = null;
    var batch = queue;
    queue = [];
    if (batch.length === 0) {
      return;
    }
    Promise.all([bearer(false), readPinned(), readDateSystem()])
      .then(function (got) {
        var token = got[0];
        var headers = { "Content-Type": "application/json" };
        if (token) {
          headers.Authorization = "Bearer " + token;
        }
        var body = {
          calls: batch.map(function (call) {
            return call.source ? { fn: call.fn, args: call.args, source: call.source } : { fn: call.fn, args: call.args };
          }),
        };
        if (got[1] !== null) {
          body.valuation_time = got[1]; // the book's pinned moment (RATES_VALUATION_TIME)
        }
        if (got[2] !== false) {
          body.date1904 = got[2]; // true: the book counts dates from 1904; text: why it could not be read
        }
        if (scenario.id) {
          body.scenario = scenario.id; // answered under the book's scenario (never recorded)
        } else if (pack.recording) {
          body.record = true; // the answers used come back, for the book's market-data pack
        }
        return fetch(CONFIG.batchUrl, {
          method: "POST",
          headers: headers,
          body: JSON.stringify(body),
          credentials: "same-origin",
          cache: "no-store",
        });
      })
      .then(function (response) {
        if (response.status === 401) {
          auth.sso = null; // expired or revoked: ask Office again next time
        }
        return response
          .json()
          .catch(function () {
            return null;
          })
          .then(function (body) {
            if (response.status === 409 && scenario.id) {
              lostScenario(describeFailure(response, body));
            }
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
            if (pack.recording && body.pack) {
              keepAnswers(body.pack);
            }
          })
          .then(showStatus);
      })
      .catch(function (error) {
        settleAll(batch, "cannot reach rates-xl serve at " + CONFIG.origin +
          " (is it running?): " + (error && error.message ? error.message : error));
      });
  }

  // The book's valuation moment: the defined name RATES_VALUATION_TIME (the name the classic
  // add-in and rates-xl calc read), through the Excel JavaScript API (the shared runtime lets
  // a custom function call Excel.run). A constant name gives its text, a name pointing at a
  // cell that cell's value; null: no such name, or a runtime without the Excel API (then the
  // server values as of now, as before). A name that cannot be read is sent as such, and the
  // server's validation answers the cells with it: never a silent "now".
  function readPinned() {
    if (typeof Excel === "undefined" || !Excel.run) {
      return Promise.resolve(null);
    }
    return Excel.run(function (context) {
      var name = context.workbook.names.getItemOrNullObject("RATES_VALUATION_TIME");
      name.load("type,value");
      return context.sync().then(function () {
        if (name.isNullObject) {
          return null;
        }
        if (name.type === "Range") {
          var range = name.getRange();
          range.load("values");
          return context.sync().then(function () {
            return range.values[0][0];
          });
        }
        return name.value;
      });
    }).catch(function (error) {
      return "unreadable RATES_VALUATION_TIME (" + (error && error.message ? error.message : error) + ")";
    });
  }

  // The book's date system: Excel counts dates from 1900 or, in a book saved so (Excel for
  // Mac's default before 2011), from 1904, and a date reaches a custom function as its serial,
  // 1,462 lower in such a book. Workbook.use1904DateSystem is a preview API of the Excel
  // JavaScript API (ExcelApi BETA, not in the released sets), so the book is asked for
  // DATE(1904,1,1) through workbook.functions (ExcelApi 1.2): 0 in a 1904 book, 1462 in a 1900
  // one. false: a 1900 book, or a runtime without the Excel API (as before); a text: why it
  // could not be read (the call failed, or answered an error or anything but 0 and 1462),
  // which the server answers in the cells that give or get a date as a number, never a guess
  // (addin/officejs/batch.py).
  function readDateSystem() {
    if (typeof Excel === "undefined" || !Excel.run) {
      return Promise.resolve(false);
    }
    return Excel.run(function (context) {
      var day = context.workbook.functions.date(1904, 1, 1);
      day.load("error,value");
      return context.sync().then(function () {
        if (!day.error && (day.value === 0 || day.value === 1462)) {
          return day.value === 0;
        }
        return "DATE(1904,1,1) answered " + (day.error || JSON.stringify(day.value));
      });
    }).catch(function (error) {
      return "DATE(1904,1,1) failed (" + (error && error.message ? error.message : error) + ")";
    });
  }

  // -- the market-data pack in the book (docs/market-data-pack.md) --------------------------
  // While "Record market data" is on, each batch's answers come back with it; they are merged
  // by request (the newest wins, as a partial Refresh in the classic add-in does) and the pack
  // is written into the workbook as its custom XML part (Excel JS workbook.customXmlParts),
  // the same part rates-xl calc writes and --replay reads. Excel saves it with the book.
  var PACK_NS = "urn:rates-xl:market-data-pack";
  var pack = { recording: false, answers: {}, baseUrl: null, writing: null };

  function requestOf(entry) {
    return entry.endpoint + "?" + entry.params.map(function (p) { return p[0] + "=" + p[1]; }).join("&");
  }

  function sortedJson(value) {
    // The pack's file form: compact JSON, keys sorted (client/pack.py's dumps).
    if (Array.isArray(value)) {
      return "[" + value.map(sortedJson).join(",") + "]";
    }
    if (value !== null && typeof value === "object") {
      return "{" + Object.keys(value).sort().map(function (k) {
        return JSON.stringify(k) + ":" + sortedJson(value[k]);
      }).join(",") + "}";
    }
    return JSON.stringify(value);
  }

  function sealPack(answers) {
    // The server seals what the page merged (addin/officejs/packs.py): it is sent each
    // answer's digest and MAC, never the answers, and gives back the pack's own fields and seal.
    return bearer(false).then(function (token) {
      var headers = { "Content-Type": "application/json" };
      if (token) {
        headers.Authorization = "Bearer " + token;
      }
      var body = { answers: answers.map(function (a) { return [a.digest, a.mac || null]; }), valuation_time: null };
      return fetch(CONFIG.packSealUrl, { method: "POST", headers: headers, body: JSON.stringify(body),
                                         credentials: "same-origin", cache: "no-store" });
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (answer) {
        if (!response.ok || !answer || !answer.seal) {
          throw new Error(describeFailure(response, answer));
        }
        return answer;
      });
    });
  }

  function packXml(fields, answers) {
    var whole = { answers: answers };
    Object.keys(fields).forEach(function (key) { whole[key] = fields[key]; });
    var text = sortedJson(whole);
    var escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    return '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<marketDataPack xmlns="' + PACK_NS + '" version="' + fields.version + '">' + escaped + "</marketDataPack>";
  }

  function keepAnswers(received) {
    pack.baseUrl = received.base_url;
    (received.answers || []).forEach(function (entry) {
      pack.answers[requestOf(entry)] = entry;
    });
    writePack();
  }

  function writePack() {
    if (typeof Excel === "undefined" || !Excel.run) {
      return Promise.resolve(false);
    }
    var answers = Object.keys(pack.answers).sort().map(function (k) { return pack.answers[k]; });
    // One write at a time, in order: the last one holds every answer kept so far.
    pack.writing = Promise.resolve(pack.writing).then(function () {
      return sealPack(answers);
    }).then(function (fields) {
      var xml = packXml(fields, answers);
      return Excel.run(function (context) {
        var parts = context.workbook.customXmlParts.getByNamespace(PACK_NS);
        parts.load("items");
        return context.sync().then(function () {
          parts.items.forEach(function (part) { part.delete(); });
          context.workbook.customXmlParts.add(xml);
          return context.sync();
        });
      });
    }).then(function () {
      showPackState(answers.length + " answers in this book's market-data pack");
      return true;
    }, function (error) {
      showPackState("cannot write the market-data pack: " + (error && error.message ? error.message : error));
      return false;
    });
    return pack.writing;
  }

  function showPackState(text) {
    var shown = byId("rates-pack-state");
    if (shown) {
      shown.textContent = text;
    }
  }

  // -- Scenario: the book's pack under a shift of the curves (docs/scenarios.md) ----------------
  // Apply reads the pack the book carries (its custom XML part), sends it with the spec to
  // POST /api/scenario and keeps the id the server answers; every batch then carries it and
  // is answered from the pack under the scenario. The banner says so as long as it is on, and
  // the book's settings remember it (saved with the book): a book reopened after a save under
  // a scenario is recalculated back to market at once, and says so.
  var SCENARIO_SETTING = "rates-xl-scenario";
  var scenario = { id: null, described: null };

  function showScenario(text, kept) {
    var banner = byId("rates-scenario-banner");
    if (banner) {
      banner.hidden = !text;
      banner.textContent = text || "";
    }
    if (byId("rates-scenario-off")) {
      byId("rates-scenario-off").hidden = !scenario.id;
    }
    var list = byId("rates-scenario-kept");
    if (list) {
      list.textContent = "";
      (kept || []).slice(0, 20).forEach(function (item) {
        var li = document.createElement("li");
        li.textContent = "not shifted: " + item[0] + ": " + item[1];
        list.appendChild(li);
      });
    }
  }

  function scenarioState(text) {
    if (byId("rates-scenario-state")) {
      byId("rates-scenario-state").textContent = text;
    }
  }

  function readBookPack() {
    if (typeof Excel === "undefined" || !Excel.run) {
      return Promise.reject(new Error("this Excel gives the task pane no access to the workbook"));
    }
    return Excel.run(function (context) {
      var parts = context.workbook.customXmlParts.getByNamespace(PACK_NS);
      parts.load("items");
      return context.sync().then(function () {
        if (parts.items.length !== 1) {
          return null;
        }
        var xml = parts.items[0].getXml();
        return context.sync().then(function () {
          var root = new DOMParser().parseFromString(xml.value, "application/xml").documentElement;
          return root ? root.textContent : null;
        });
      });
    });
  }

  function recalculate() {
    if (typeof Excel === "undefined" || !Excel.run) {
      return Promise.resolve();
    }
    return Excel.run(function (context) {
      context.workbook.application.calculate(Excel.CalculationType ? Excel.CalculationType.full : "Full");
      return context.sync();
    }).catch(function () { return null; });
  }

  function remember(described) {
    try {
      var settings = Office.context.document.settings;
      if (described) {
        settings.set(SCENARIO_SETTING, described);
      } else {
        settings.remove(SCENARIO_SETTING);
      }
      settings.saveAsync();
    } catch (e) {
      // no document settings here (a browser without Office): the banner still says it
    }
  }

  function applyScenario(spec) {
    scenarioState("applying " + spec + "...");
    return readBookPack().then(function (text) {
      if (!text) {
        throw new Error("this book carries no market-data pack: tick Record market data and recalculate " +
                        "(Ctrl+Alt+F9) first");
      }
      return postJson("/api/scenario", { pack: text, spec: spec, buckets: null });
    }).then(function (answer) {
      if (live.on) {
        setLive(false); // Live answers from the service; a scenario from the book's pack
      }
      if (pack.recording) {
        byId("rates-record").click(); // a scenario's answers are never the book's market data
      }
      scenario.id = answer.scenario;
      scenario.described = answer.described;
      remember(answer.described);
      showScenario("SCENARIO " + answer.described + ": NOT market data. The RATES cells show this book's " +
                   "recorded answers moved by a local curve model (" + answer.moved + " moved, " +
                   answer.not_shifted.length + " not shifted). Back to market returns.", answer.not_shifted);
      scenarioState("scenario on");
      return recalculate().then(function () { return answer; });
    }, function (error) {
      scenarioState("not applied: " + (error && error.message ? error.message : error));
      throw error;
    });
  }

  function backToMarket() {
    var id = scenario.id;
    scenario.id = null;
    scenario.described = null;
    remember(null);
    showScenario(null, []);
    scenarioState("at market");
    var off = id ? postJson("/api/scenario/off", { scenario: id }).catch(function () { return null; })
                 : Promise.resolve();
    return off.then(recalculate);
  }

  function lostScenario(detail) {
    // The server no longer holds it (restarted): back to market, and the banner says why.
    scenario.id = null;
    remember(null);
    showScenario("The scenario " + scenario.described + " ended (" + detail + "): recalculating back to market.", []);
    scenario.described = null;
    scenarioState("at market");
    recalculate();
  }

  function reopened() {
    // A book saved while a scenario was on: its cells may still show it. Back to market now.
    var was = null;
    try {
      was = Office.context.document.settings.get(SCENARIO_SETTING);
    } catch (e) {
      was = null;
    }
    if (was && !scenario.id) {
      remember(null);
      showScenario("This book was saved while the SCENARIO " + was + " was on: its RATES cells may still show " +
                   "it (not market data). Recalculating back to market now.", []);
      recalculate();
    }
  }

  // -- RATES.SOURCE: the referenced cell's formula, never its value ---------------------------
  // Excel passes the cell's address (requiresParameterAddresses); its formula (the spill's,
  // for a cell of a table) and the cells that formula references are read here with the Excel
  // JS API, and the server follows them to the exact request (functions/link.py).
  function references(formula, sheet) {
    var text = formula.replace(/"(?:[^"]|"")*"/g, '""'); // no reference inside a string
    var found = [];
    var re = /(?<![\w$.'])(?:('(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?\$?([A-Za-z]{1,3})\$?(\d+)(?![\w(!])/g;
    var m;
    while ((m = re.exec(text)) !== null) {
      var at = m[1] ? m[1].replace(/^'|'$/g, "").replace(/''/g, "'") : sheet;
      found.push([at, m[2].toUpperCase() + m[3]]);
    }
    return found;
  }

  function readSource(address) {
    if (typeof Excel === "undefined" || !Excel.run || !address) {
      return Promise.resolve(null);
    }
    var cut = address.lastIndexOf("!");
    var sheet = address.slice(0, cut).replace(/^'|'$/g, "").replace(/''/g, "'");
    var cell = address.slice(cut + 1).split(":")[0].replace(/\$/g, "");
    var where = sheet + "!" + cell;
    return Excel.run(function (context) {
      var range = context.workbook.worksheets.getItem(sheet).getRange(cell);
      range.load("formulas");
      var parent = range.getSpillParentOrNullObject();
      parent.load("formulas");
      return context.sync().then(function () {
        var formula = range.formulas[0][0];
        if (!(typeof formula === "string" && formula.charAt(0) === "=") && !parent.isNullObject) {
          formula = parent.formulas[0][0];
        }
        if (!(typeof formula === "string" && formula.charAt(0) === "=")) {
          return { where: where, sheet: sheet, formula: "", values: {} };
        }
        var refs = references(formula, sheet);
        var read = refs.map(function (r) {
          var x = context.workbook.worksheets.getItem(r[0]).getRange(r[1]);
          x.load("values");
          return x;
        });
        return context.sync().then(function () {
          var values = {};
          refs.forEach(function (r, i) { values[r[0] + "!" + r[1]] = read[i].values[0][0]; });
          return { where: where, sheet: sheet, formula: formula, values: values };
        });
      });
    }).catch(function (error) {
      return { where: where, error: "cannot read the cell (" + (error && error.message ? error.message : error) + ")" };
    });
  }

  function push(fn, args, source) {
    return new Promise(function (resolve, reject) {
      var call = { fn: fn, args: args, resolve: resolve, reject: reject, settled: false, source: source || null };
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
      var invocation = null;
      if (args.length > 0 && isInvocation(args[args.length - 1])) {
        invocation = args.pop();
      }
      var values = args.slice(0, arity).map(function (value) {
        return value === undefined ? null : value;
      });
      var position = (CONFIG.references || {})[id];
      if (position !== undefined && invocation && invocation.parameterAddresses) {
        return readSource(invocation.parameterAddresses[position]).then(function (source) {
          return push(id, values, source);
        });
      }
      return push(id, values);
    };
  }

  // -- Live mode (streaming functions) ----------------------------------------------------
  var LIVE_KEY = "rates-xl-live";
  var live = { on: false, session: newSession(), cells: {}, nextId: 1, polling: false,
               subQueue: [], subTimer: null, cancelQueue: [], cancelTimer: null, status: null };

  function newSession() {
    var bytes = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function storedLive() {
    try {
      return window.localStorage.getItem(LIVE_KEY) === "on";
    } catch (e) {
      return false;
    }
  }

  // A JSON POST to this server with the user's sign-in: its JSON answer, or an Error saying
  // why not (the server's detail when it gave one).
  function postJson(url, body) {
    return bearer(false).then(function (token) {
      var headers = { "Content-Type": "application/json" };
      if (token) {
        headers.Authorization = "Bearer " + token;
      }
      return fetch(url, { method: "POST", headers: headers, body: JSON.stringify(body),
                          credentials: "same-origin", cache: "no-store" });
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (answer) {
        if (!response.ok || !answer) {
          throw new Error(answer && typeof answer.detail === "string" ? answer.detail
                                                                     : describeFailure(response, answer));
        }
        return answer;
      });
    });
  }

  function livePost(url, body) {
    body.session = live.session;
    return postJson(url, body);
  }

  function resultOf(outcome) {
    if (outcome && Object.prototype.hasOwnProperty.call(outcome, "value")) {
      return cellsOf(outcome.value);
    }
    var o = outcome || {};
    return errorFor(o.error, o.message);
  }

  function showLive(status, problem) {
    live.status = status || live.status;
    var box = byId("rates-live-status");
    if (box) {
      box.textContent = problem ? "Live: " + problem : (live.on ? (live.status ? live.status.text : "Live")
                                                                  : "Live off");
    }
  }

  function subscribe(cell) {
    live.subQueue.push(cell);
    if (live.subTimer === null) {
      live.subTimer = setTimeout(flushSubscriptions, CONFIG.flushMs);
    }
  }

  function flushSubscriptions() {
    live.subTimer = null;
    var cells = live.subQueue.filter(function (c) { return !c.canceled && !c.subscribed; });
    live.subQueue = [];
    if (!live.on || cells.length === 0) {
      return;
    }
    Promise.all([readPinned(), readDateSystem()]).then(function (book) {
      var moment = book[0];
      var body = { subs: cells.map(function (c) {
        return { id: c.id, fn: c.fn, args: c.args };
      }) };
      if (moment !== null) {
        body.valuation_time = moment; // a pinned book's cells are valued at its moment, never refetched as of now
      }
      if (book[1] !== false) {
        body.date1904 = book[1]; // the book's date system, as a batch's
      }
      return livePost(CONFIG.live.subscribeUrl, body);
    }).then(function (answer) {
      answer.subs.forEach(function (sub) {
        var cell = live.cells[sub.id];
        if (cell) {
          cell.subscribed = sub.live === true; // false: valued as of a past time, never refreshed
        }
      });
      showLive(answer.status);
      poll();
    }).catch(function (error) {
      showLive(null, "cannot subscribe: " + (error && error.message ? error.message : error));
    });
  }

  function unsubscribe(ids) {
    Array.prototype.push.apply(live.cancelQueue, ids);
    if (live.cancelTimer === null) {
      live.cancelTimer = setTimeout(function () {
        live.cancelTimer = null;
        var batch = live.cancelQueue;
        live.cancelQueue = [];
        livePost(CONFIG.live.cancelUrl, { ids: batch }).catch(function (error) {
          showLive(null, "cannot unsubscribe: " + (error && error.message ? error.message : error));
        });
      }, CONFIG.flushMs);
    }
  }

  function subscribedCount() {
    return Object.keys(live.cells).filter(function (id) { return live.cells[id].subscribed; }).length;
  }

  function poll() {
    if (!live.on || live.polling || subscribedCount() === 0) {
      return;
    }
    live.polling = true;
    livePost(CONFIG.live.pollUrl, {}).then(function (answer) {
      live.polling = false;
      answer.updates.forEach(function (update) {
        var cell = live.cells[update.id];
        if (cell && !cell.canceled) {
          cell.invocation.setResult(resultOf(update));
        }
      });
      showLive(answer.status);
      if (answer.subscribed === 0 && subscribedCount() > 0) {
        // The server forgot this page (it restarted): subscribe every cell again.
        Object.keys(live.cells).forEach(function (id) {
          live.cells[id].subscribed = false;
          subscribe(live.cells[id]);
        });
      }
      poll();
    }).catch(function (error) {
      live.polling = false;
      showLive(null, (error && error.message ? error.message : String(error)));
      setTimeout(poll, CONFIG.live.retryMs);
    });
  }

  function setLive(on) {
    live.on = !!on;
    try {
      window.localStorage.setItem(LIVE_KEY, live.on ? "on" : "off");
    } catch (e) {
      // storage blocked: the switch lasts as long as the page
    }
    var box = byId("rates-live");
    if (box) {
      box.checked = live.on;
    }
    var ids = Object.keys(live.cells);
    if (live.on) {
      ids.forEach(function (id) { subscribe(live.cells[id]); });
    } else {
      var subscribed = ids.filter(function (id) { return live.cells[id].subscribed; });
      subscribed.forEach(function (id) { live.cells[id].subscribed = false; });
      if (subscribed.length) {
        unsubscribe(subscribed.map(Number));
      }
    }
    showLive(null);
  }

  function streamingAdapter(id, arity) {
    return function () {
      var args = Array.prototype.slice.call(arguments);
      var invocation = args.length > 0 && isInvocation(args[args.length - 1]) ? args.pop() : null;
      var cell = { id: live.nextId++, fn: id, invocation: invocation, canceled: false, subscribed: false,
                   args: args.slice(0, arity).map(function (value) { return value === undefined ? null : value; }) };
      if (!invocation || typeof invocation.setResult !== "function") {
        return push(id, cell.args); // not called as a streaming function: answer once
      }
      invocation.onCanceled = function () {
        cell.canceled = true;
        delete live.cells[cell.id];
        if (cell.subscribed) {
          cell.subscribed = false;
          unsubscribe([cell.id]);
        }
      };
      push(id, cell.args).then(function (value) { return value; }, function (error) { return error; })
        .then(function (result) {
          if (cell.canceled) {
            return;
          }
          invocation.setResult(result);
          live.cells[cell.id] = cell;
          if (live.on) {
            subscribe(cell);
          }
        });
    };
  }

  // -- the task pane: who is signed in, the team's use, the last error -------------------
  function byId(id) {
    return document.getElementById(id);
  }

  function showSignIn(reason) {
    var form = byId("rates-signin");
    if (!form) {
      return;
    }
    byId("rates-status").hidden = true;
    form.hidden = false;
    byId("rates-signin-reason").textContent = reason;
    byId("rates-sso").hidden = auth.methods.indexOf("sso") < 0;
    byId("rates-token-form").hidden = auth.methods.indexOf("token") < 0;
  }

  function showStatus() {
    if (!byId("rates-status")) {
      return Promise.resolve();
    }
    return bearer(false).then(function (token) {
      if (auth.mode !== "team") {
        byId("rates-user").textContent = "this computer (local server, no sign-in)";
        byId("rates-status").hidden = false;
        return;
      }
      if (!token) {
        showSignIn("Sign in to use the RATES functions.");
        return;
      }
      return fetch("/api/me", { headers: { Authorization: "Bearer " + token }, cache: "no-store" })
        .then(function (r) {
          return r.json().then(function (body) {
            if (!r.ok) {
              auth.sso = null;
              showSignIn(body.detail || "Sign in again.");
              return;
            }
            byId("rates-signin").hidden = true;
            byId("rates-status").hidden = false;
            byId("rates-user").textContent = body.user;
            byId("rates-team").textContent = body.team.users + " users, " + body.team.cells +
              " cells, " + body.team.requests_sent + " service requests since the server started";
            byId("rates-mine").textContent = body.use.cells + " cells, " + body.use.requests_sent +
              " service requests";
            byId("rates-error").textContent = body.use.last_error || "none";
          });
        })
        .catch(function (error) {
          byId("rates-error").textContent = "cannot reach the server: " + (error && error.message);
        });
    });
  }

  function wireTaskPane() {
    var liveBox = byId("rates-live");
    if (liveBox) {
      liveBox.checked = live.on;
      liveBox.addEventListener("change", function () { setLive(liveBox.checked); });
      showLive(null);
    }
    if (byId("rates-record")) {
      byId("rates-record").addEventListener("click", function () {
        pack.recording = !pack.recording;
        byId("rates-record").textContent = pack.recording ? "Stop recording" : "Record market data";
        showPackState(pack.recording ? "recording: recalculate the book (Ctrl+Alt+F9)" : "not recording");
      });
    }
    if (byId("rates-scenario-apply")) {
      byId("rates-scenario-apply").addEventListener("click", function () {
        applyScenario(byId("rates-scenario-spec").value.trim()).catch(function () { return null; });
      });
      byId("rates-scenario-off").addEventListener("click", function () { backToMarket(); });
    }
    reopened();
    if (!byId("rates-signin")) {
      return;
    }
    byId("rates-sso").addEventListener("click", function () {
      ssoToken(true).then(showStatus);
    });
    byId("rates-token-form").addEventListener("submit", function (event) {
      event.preventDefault();
      try {
        window.localStorage.setItem(TOKEN_KEY, byId("rates-token").value.trim());
      } catch (e) {
        showSignIn("This browser keeps no token (storage is blocked).");
        return;
      }
      byId("rates-token").value = "";
      showStatus();
    });
    showStatus();
  }

  window.ratesScenario = { apply: applyScenario, off: backToMarket, state: function () {
    return { id: scenario.id, described: scenario.described };
  } };

  live.on = storedLive();
  window.ratesLive = { set: setLive, state: function () {
    return { on: live.on, cells: Object.keys(live.cells).length, subscribed: subscribedCount(),
             status: live.status };
  } };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", wireTaskPane);
  } else {
    wireTaskPane();
  }

  if (typeof CustomFunctions === "undefined") {
    console.error("rates-xl: CustomFunctions is not defined; open this add-in in Excel");
    return;
  }
  Object.keys(CONFIG.functions).forEach(function (id) {
    var streams = CONFIG.streaming.indexOf(id) >= 0;
    CustomFunctions.associate(id, (streams ? streamingAdapter : adapter)(id, CONFIG.functions[id]));
  });
})();
