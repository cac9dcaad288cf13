// The Outlook add-in's runtime: one JavaScript file with no imports, because classic Outlook on
// Windows runs it alone in a bare JavaScript engine (no DOM, no modules); Outlook on the web, on
// Mac and the new Outlook load it from commands.html. Written in ES5 with callbacks for the same
// reason. The service fills in SIGSVC (its URL, the org's add-in key, the wait limit) when it
// serves this file.
//
// Every handler calls event.completed() exactly once on every path (a signature inserted, none
// found, the service slow or failing, an API missing on this client, an exception), so composing
// never waits on us for long.
/* global Office */
var SIGSVC = /*SIGSVC_CONFIG*/ { baseUrl: '', addinKey: '', timeoutMs: 5000 };

var SIGSVC_LIMIT_CHARS = 30000;

function sigsvcOnce(event) {
  var done = false;
  return function finish() {
    if (done) return;
    done = true;
    try {
      event.completed();
    } catch (e) {
      // Nothing more to do: the client has given up on this event already.
    }
  };
}

function sigsvcComposeType(item, callback) {
  if (item.itemType === 'appointment' || typeof item.getComposeTypeAsync !== 'function') return callback('new');
  item.getComposeTypeAsync(function (result) {
    var type = result && result.status === 'succeeded' && result.value ? result.value.composeType : 'newMail';
    callback(type === 'reply' ? 'reply' : type === 'forward' ? 'forward' : 'new');
  });
}

// The From address (a shared or delegated mailbox has its own), else the organizer of a meeting,
// else the signed-in user.
function sigsvcSender(item, callback) {
  var fallback = function () {
    var profile = Office.context.mailbox.userProfile;
    callback(profile ? profile.emailAddress : '');
  };
  var field = item.itemType === 'appointment' ? item.organizer : item.from;
  if (!field || typeof field.getAsync !== 'function') return fallback();
  field.getAsync(function (result) {
    if (result && result.status === 'succeeded' && result.value?.emailAddress) callback(result.value.emailAddress);
    else fallback();
  });
}

// GET /v1/addin/signature. Answers (null, {html, text}), or (error) with error.status when the
// service answered (404 unknown sender, 413 too long, 401 wrong key, 402 payment) and no status
// when it did not (offline, timed out).
function sigsvcFetch(email, compose, callback) {
  var url = `${SIGSVC.baseUrl}/v1/addin/signature?email=${encodeURIComponent(email)}&compose=${compose}`;
  var answered = false;
  var xhr;
  var answer = function (err, value) {
    if (answered) return;
    answered = true;
    callback(err, value);
  };
  var timer = setTimeout(function () {
    answer({ status: 0, message: 'timed out' });
  }, SIGSVC.timeoutMs);
  var settle = function (status, body) {
    clearTimeout(timer);
    var parsed = null;
    try {
      parsed = JSON.parse(body);
    } catch (e) {
      parsed = null;
    }
    if (status === 200 && parsed && typeof parsed.html === 'string') answer(null, parsed);
    else answer({ status: status, message: parsed?.error ? parsed.error.message : `HTTP ${status}` });
  };
  try {
    if (typeof fetch === 'function') {
      fetch(url, { method: 'GET', headers: { 'X-Addin-Key': SIGSVC.addinKey } }).then(
        function (res) {
          return res.text().then(function (body) {
            settle(res.status, body);
          });
        },
        function () {
          clearTimeout(timer);
          answer({ status: 0, message: 'network error' });
        },
      );
    } else {
      xhr = new XMLHttpRequest();
      xhr.open('GET', url, true);
      xhr.setRequestHeader('X-Addin-Key', SIGSVC.addinKey);
      xhr.onload = function () {
        settle(xhr.status, xhr.responseText);
      };
      xhr.onerror = function () {
        clearTimeout(timer);
        answer({ status: 0, message: 'network error' });
      };
      xhr.send();
    }
  } catch (e) {
    clearTimeout(timer);
    answer({ status: 0, message: String(e) });
  }
}

function sigsvcNotify(item, message) {
  try {
    item.notificationMessages.replaceAsync('sigsvc', { type: 'informationalMessage', message: message.slice(0, 150), icon: 'Icon.16x16', persistent: false });
  } catch (e) {
    // Notifications are a courtesy; the event still completes.
  }
}

// What each event does once the sender and the compose type are known. `swap` (a changed From)
// clears the previous sender's signature when the new one has none.
function sigsvcInsert(event, options) {
  var finish = sigsvcOnce(event);
  // The last resort: whatever happens below, the event completes by then.
  var guard = setTimeout(finish, SIGSVC.timeoutMs + 2000);
  var end = function () {
    clearTimeout(guard);
    finish();
  };
  // Each callback runs later, outside any try around its caller: a client API throwing in one ends the event too.
  var safe = function (fn) {
    return function (a, b) {
      try {
        fn(a, b);
      } catch (e) {
        end();
      }
    };
  };
  safe(function () {
    var item = Office.context.mailbox.item;
    sigsvcComposeType(
      item,
      safe(function (compose) {
        sigsvcSender(
          item,
          safe(function (email) {
            if (!email) return end();
            sigsvcFetch(
              email,
              compose,
              safe(function (err, signature) {
                if (err) {
                  if (err.status === 413) sigsvcNotify(item, `Your signature was not inserted: ${err.message}`);
                  if (options.swap && err.status === 404) return item.body.setSignatureAsync('', { coercionType: 'html' }, end);
                  return end();
                }
                if (signature.html.length > SIGSVC_LIMIT_CHARS) {
                  sigsvcNotify(item, 'Your signature was not inserted: it is longer than Outlook allows (30,000 characters).');
                  return end();
                }
                var set = safe(function () {
                  item.body.setSignatureAsync(signature.html, { coercionType: 'html' }, end);
                });
                // Outlook's own signature would be added as well; turn it off where the client allows.
                if (item.itemType !== 'appointment' && typeof item.disableClientSignatureAsync === 'function') {
                  item.disableClientSignatureAsync(set);
                } else {
                  set();
                }
              }),
            );
          }),
        );
      }),
    );
  })();
}

function onNewMessageComposeHandler(event) {
  sigsvcInsert(event, { swap: false });
}

function onNewAppointmentOrganizerHandler(event) {
  sigsvcInsert(event, { swap: false });
}

function onMessageFromChangedHandler(event) {
  sigsvcInsert(event, { swap: true });
}

// The compose button inserts the signature again (after an edit, or where events do not run).
function insertSignature(event) {
  sigsvcInsert(event, { swap: true });
}

if (typeof Office !== 'undefined' && Office.actions && typeof Office.actions.associate === 'function') {
  Office.actions.associate('onNewMessageComposeHandler', onNewMessageComposeHandler);
  Office.actions.associate('onNewAppointmentOrganizerHandler', onNewAppointmentOrganizerHandler);
  Office.actions.associate('onMessageFromChangedHandler', onMessageFromChangedHandler);
  Office.actions.associate('insertSignature', insertSignature);
}
