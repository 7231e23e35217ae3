"""``grader review OUT``: a local review app over a finished batch, every action a ledger line.

=========  ==========================================================================================
actions    what a reviewer's actions write: ledger lines under the lock; a conflict shows both versions
app        the pages and actions (Starlette, Jinja2 with autoescape), behind the guard
data       what the app reads: reports, ledger, the queue's groups, code, notebook outputs, comments
security   the launch token, session cookie, Host, Origin and CSRF checks, and the headers (CSP)
serve      the socket on 127.0.0.1, the launch URL, the browser, uvicorn
=========  ==========================================================================================
"""
