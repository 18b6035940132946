;;; fathom-test-helpers.el --- What the ERT tests of fathom.el share  -*- lexical-binding: t; -*-

;;; Commentary:

;; Required by fathom-tests.el and fathom-never-blocks-tests.el: the fixture's root (from
;; FATHOM_TEST_ROOT) and the *fathom* buffer's match lines as sorted "path:line:column".

;;; Code:

(defvar fathom-tests--root (getenv "FATHOM_TEST_ROOT")
  "The fixture repository the tests run in.")

(defun fathom-tests--locations ()
  "The \"path:line:column\" of each match line in *fathom*, sorted."
  (with-current-buffer "*fathom*"
    (let (found)
      (goto-char (point-min))
      (while (re-search-forward "^\\([^:\n]+\\):\\([0-9]+\\):\\([0-9]+\\):" nil t)
        (push (format "%s:%s:%s" (match-string 1) (match-string 2) (match-string 3)) found))
      (sort found #'string<))))

(provide 'fathom-test-helpers)
;;; fathom-test-helpers.el ends here
