package api

// Classify maps an error through the server's one status table to the
// status, stable code and user-safe message the error handler would send.
// The HTML pages use it for errors they show inside a page (a form).
func Classify(err error) (status int, code, message string) { return classify(err) }
