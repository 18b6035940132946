;;; fathom.el --- Client for the Fathom code-intelligence daemon  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, languages, matching
;; URL: clients/emacs in the Fathom repository

;;; Commentary:

;; Emacs as a client of the Fathom daemon (`fathom serve --stdio'), on the built-in jsonrpc.el
;; rather than eglot, so it runs beside whatever language server the user has.  One connection
;; per workspace root.  `fathom-mode' (or `global-fathom-mode') sends a buffer's text to the
;; daemon when it is opened and after changes (debounced), so searches see unsaved text; the
;; pending text is always sent before a request.  Commands:
;;
;;   `fathom-grep'               regex search, results in a grep-mode buffer
;;   `fathom-code-search'        a question in words (ranked whole chunks), an identifier
;;                               (definitions, then uses), a regex or a fragment of code
;;   `fathom-structural-search'  code with $X metavariables, in the buffer's language
;;   `fathom-status'             the workspace's files and indexes
;;
;; and an xref backend (`fathom-xref-backend') for definitions and references through the code
;; graph.  Nothing here writes a file.

;;; Code:

(require 'jsonrpc)
(require 'cl-lib)
(require 'grep)
(require 'xref)
(require 'subr-x)
(require 'url-util)

(defgroup fathom nil
  "Client for the Fathom code-intelligence daemon."
  :group 'tools
  :prefix "fathom-")

(defcustom fathom-command '("fathom" "serve" "--stdio")
  "The command that runs the daemon, speaking LSP-framed JSON-RPC on stdio.
\='(\"fathom\" \"attach\") shares the user's one daemon on its socket."
  :type '(repeat string)
  :group 'fathom)

(defcustom fathom-process-environment nil
  "Extra environment for the daemon, as \"NAME=value\" strings."
  :type '(repeat string)
  :group 'fathom)

(defcustom fathom-root-markers '(".git")
  "Files or folders that mark a workspace root, searched upward from a file."
  :type '(repeat string)
  :group 'fathom)

(defcustom fathom-timeout 30
  "Seconds a command waits for the daemon's answer."
  :type 'integer
  :group 'fathom)

(defcustom fathom-sync-delay 0.1
  "Seconds after a change before the buffer's text is sent to the daemon."
  :type 'number
  :group 'fathom)

(defcustom fathom-max-results 2000
  "At most this many results are shown."
  :type 'integer
  :group 'fathom)

(defvar fathom-mode)  ; defined by `define-minor-mode' below

(defvar fathom--connections (make-hash-table :test #'equal)
  "Workspace root to its jsonrpc connection.")

(defvar-local fathom--version 0
  "The version of this buffer's text last sent to the daemon.")

(defvar-local fathom--dirty nil
  "Non-nil when this buffer changed since its text was last sent.")

(defvar-local fathom--timer nil
  "The timer that sends this buffer's pending text.")

(defun fathom--root (&optional directory)
  "The workspace root above DIRECTORY (default: the current one)."
  (let ((start (or directory default-directory)))
    (directory-file-name
     (expand-file-name
      (or (cl-some (lambda (marker) (locate-dominating-file start marker))
                   fathom-root-markers)
          start)))))

(defun fathom--uri (file)
  "The file:// URI of FILE."
  (concat "file://" (url-hexify-string (expand-file-name file) url-path-allowed-chars)))

(defun fathom--ignore-request (_connection method _params)
  "Answer a request from the daemon (METHOD): Fathom's client has nothing to say."
  (ignore method)
  nil)

(defun fathom--connection (root)
  "The live connection for ROOT, started and initialized on first use."
  (let ((connection (gethash root fathom--connections)))
    (if (and connection (jsonrpc-running-p connection))
        connection
      (let* ((process-environment (append fathom-process-environment process-environment))
             (default-directory (file-name-as-directory root))
             (process (make-process :name (format "fathom %s" root)
                                    :command fathom-command
                                    :connection-type 'pipe
                                    :coding 'utf-8-emacs-unix
                                    :noquery t
                                    :stderr (get-buffer-create " *fathom stderr*")))
             (new (make-instance 'jsonrpc-process-connection
                                 :name (format "fathom %s" root)
                                 :process process
                                 :events-buffer-scrollback-size 0
                                 :request-dispatcher #'fathom--ignore-request
                                 :notification-dispatcher #'ignore)))
        (jsonrpc-request new :initialize
                         (list :processId (emacs-pid)
                               :rootUri (fathom--uri root)
                               :capabilities (make-hash-table))
                         :timeout fathom-timeout)
        (jsonrpc-notify new :initialized (make-hash-table))
        (puthash root new fathom--connections)
        new))))

(defun fathom--send-buffer (&optional buffer)
  "Send BUFFER's text to the daemon if it changed since it was last sent."
  (with-current-buffer (or buffer (current-buffer))
    (when (and fathom-mode fathom--dirty buffer-file-name)
      (when (timerp fathom--timer) (cancel-timer fathom--timer))
      (setq fathom--timer nil
            fathom--dirty nil
            fathom--version (1+ fathom--version))
      (jsonrpc-notify (fathom--connection (fathom--root))
                      :textDocument/didChange
                      (list :textDocument (list :uri (fathom--uri buffer-file-name)
                                                :version fathom--version)
                            :contentChanges
                            (vector (list :text (save-restriction
                                                  (widen)
                                                  (buffer-substring-no-properties
                                                   (point-min) (point-max))))))))))

(defun fathom--after-change (&rest _)
  "Note a change and send it after `fathom-sync-delay'."
  (setq fathom--dirty t)
  (unless (timerp fathom--timer)
    (setq fathom--timer (run-with-idle-timer fathom-sync-delay nil #'fathom--send-buffer
                                             (current-buffer)))))

(defun fathom--flush (root)
  "Send the pending text of every `fathom-mode' buffer under ROOT."
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (and fathom-mode fathom--dirty buffer-file-name
                 (string-prefix-p (file-name-as-directory root) (expand-file-name buffer-file-name)))
        (fathom--send-buffer buffer)))))

(defun fathom--did-close ()
  "Tell the daemon this buffer is gone."
  (when (and buffer-file-name (gethash (fathom--root) fathom--connections))
    (ignore-errors
      (jsonrpc-notify (fathom--connection (fathom--root)) :textDocument/didClose
                      (list :textDocument (list :uri (fathom--uri buffer-file-name)))))))

;;;###autoload
(define-minor-mode fathom-mode
  "Send this buffer's text, saved or not, to the Fathom daemon."
  :lighter " Fathom"
  (if fathom-mode
      (when buffer-file-name
        (setq fathom--version 1 fathom--dirty nil)
        (jsonrpc-notify (fathom--connection (fathom--root)) :textDocument/didOpen
                        (list :textDocument
                              (list :uri (fathom--uri buffer-file-name)
                                    :languageId (string-remove-suffix "-mode" (symbol-name major-mode))
                                    :version fathom--version
                                    :text (save-restriction
                                            (widen)
                                            (buffer-substring-no-properties (point-min) (point-max))))))
        (add-hook 'after-change-functions #'fathom--after-change nil t)
        (add-hook 'kill-buffer-hook #'fathom--did-close nil t)
        (add-hook 'xref-backend-functions #'fathom-xref-backend nil t))
    (remove-hook 'after-change-functions #'fathom--after-change t)
    (remove-hook 'kill-buffer-hook #'fathom--did-close t)
    (remove-hook 'xref-backend-functions #'fathom-xref-backend t)
    (fathom--did-close)))

(defun fathom--turn-on ()
  "Enable `fathom-mode' in buffers visiting files."
  (when buffer-file-name (fathom-mode 1)))

;;;###autoload
(define-globalized-minor-mode global-fathom-mode fathom-mode fathom--turn-on
  :group 'fathom)

(defun fathom-request (method params &optional root)
  "Send METHOD with PARAMS (a plist) to the daemon of ROOT; answer the result.
Pending buffer text is sent first; ROOT defaults to the current workspace."
  (let ((root (or root (fathom--root))))
    (fathom--flush root)
    (jsonrpc-request (fathom--connection root) method (append (list :root root) params)
                     :timeout fathom-timeout)))

(defun fathom--show-matches (title root lines)
  "Show LINES (\"path:line:column:text\") under TITLE in a grep-mode buffer for ROOT."
  (let ((buffer (get-buffer-create "*fathom*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (setq default-directory (file-name-as-directory root))
        (insert (format "-*- %s -*-\n" title))
        (dolist (line lines) (insert line "\n"))
        (insert (format "\n%d matches\n" (length lines))))
      (grep-mode))
    (display-buffer buffer)
    buffer))

(defun fathom--grep (pattern extra title)
  "Search PATTERN with EXTRA params; show the matches under TITLE."
  (let* ((root (fathom--root))
         (result (fathom-request :fathom/grep
                                 (append (list :pattern pattern :maxResults fathom-max-results) extra)
                                 root)))
    (fathom--show-matches
     title root
     (mapcar (lambda (match)
               (format "%s:%d:%d:%s" (plist-get match :path) (plist-get match :line)
                       (plist-get match :column) (plist-get match :text)))
             (plist-get result :matches)))))

;;;###autoload
(defun fathom-grep (regex)
  "Search the workspace for REGEX (JavaScript syntax), unsaved buffers included."
  (interactive (list (read-string "Fathom grep (regex): " (thing-at-point 'symbol t))))
  (fathom--grep regex nil (format "fathom grep %s" regex)))

;;;###autoload
(defun fathom-code-search (query)
  "Search the workspace for QUERY: words, an identifier, a regex or code.
Words are ranked over whole functions and classes; each hit is listed at
its line holding the most of the words, with the chunk's line range."
  (interactive (list (read-string "Fathom code search: ")))
  (let* ((root (fathom--root))
         (result (fathom-request :fathom/codeSearch
                                 (list :query query :maxResults fathom-max-results :maxInlineBytes 0)
                                 root)))
    (fathom--show-matches
     (format "fathom search %s (%s)" query (plist-get result :route)) root
     (mapcar (lambda (hit)
               (let ((line (plist-get hit :line)))
                 (format "%s:%d:%d:%s" (plist-get hit :path) line
                         (or (plist-get hit :column) 1)
                         (if (equal (plist-get hit :start) (plist-get hit :end))
                             (plist-get hit :snippet)
                           (format "[%d-%d] %s" (plist-get hit :start) (plist-get hit :end)
                                   (string-trim
                                    (or (nth (- line (plist-get hit :snippetStart))
                                             (split-string (plist-get hit :snippet) "\n"))
                                        "")))))))
             (plist-get result :hits)))))

;;;###autoload
(defun fathom-structural-search (pattern &optional language)
  "Search for code shaped like PATTERN ($X, $$$X metavariables) in LANGUAGE.
LANGUAGE defaults to the current file's extension."
  (interactive (list (read-string "Fathom structural search: ")))
  (let* ((language (or language (and buffer-file-name (file-name-extension buffer-file-name))
                       (user-error "No language: run it from a file of that language")))
         (root (fathom--root))
         (result (fathom-request :fathom/structuralSearch
                                 (list :pattern pattern :language language
                                       :maxResults fathom-max-results)
                                 root)))
    (fathom--show-matches
     (format "fathom structural search %s" pattern) root
     (mapcar (lambda (match)
               (let ((start (plist-get (plist-get match :range) :start)))
                 (format "%s:%d:%d:%s" (plist-get match :path) (plist-get start :line)
                         (plist-get start :column) (plist-get match :lineText))))
             (plist-get result :matches)))))

;;;###autoload
(defun fathom-status ()
  "Show the workspace's file set and index states."
  (interactive)
  (let* ((result (fathom-request :fathom/status nil))
         (lines (mapcar (lambda (workspace)
                          (format "%s: %s, %s files" (plist-get workspace :root)
                                  (plist-get workspace :state) (plist-get workspace :files)))
                        (plist-get result :workspaces))))
    (message "%s" (string-join lines "\n"))
    result))

;;; xref: definitions and references through the code graph.

;;;###autoload
(defun fathom-xref-backend ()
  "The xref backend of `fathom-mode' buffers."
  (and fathom-mode 'fathom))

(defun fathom--position ()
  "Point as a Fathom position: 1-based line and UTF-16 column."
  (let ((text (buffer-substring-no-properties (line-beginning-position) (point))))
    (list :line (line-number-at-pos (point) t)
          :column (1+ (/ (length (encode-coding-string text 'utf-16le)) 2)))))

(cl-defmethod xref-backend-identifier-at-point ((_backend (eql fathom)))
  "The symbol at point, carrying where it is."
  (let ((symbol (or (thing-at-point 'symbol t) "")))
    (propertize symbol 'fathom-file buffer-file-name 'fathom-position (fathom--position))))

(defun fathom--xref-params (identifier)
  "Params naming IDENTIFIER: its position when it has one, else its name."
  (let ((file (get-text-property 0 'fathom-file identifier)))
    (if file
        (list :path file :position (get-text-property 0 'fathom-position identifier))
      (list :symbol (substring-no-properties identifier)))))

(defun fathom--xref (root path range summary)
  "An xref item for PATH (relative to ROOT) at RANGE's start, showing SUMMARY."
  (let ((start (plist-get range :start)))
    (xref-make summary
               (xref-make-file-location (expand-file-name path root)
                                        (plist-get start :line)
                                        (1- (plist-get start :column))))))

(cl-defmethod xref-backend-definitions ((_backend (eql fathom)) identifier)
  "Where IDENTIFIER is defined, through the code graph."
  (let* ((root (fathom--root))
         (result (fathom-request :fathom/definition (fathom--xref-params identifier) root)))
    (mapcar (lambda (symbol)
              (fathom--xref root (plist-get symbol :path) (plist-get symbol :selectionRange)
                            (plist-get symbol :signature)))
            (plist-get result :definitions))))

(cl-defmethod xref-backend-references ((_backend (eql fathom)) identifier)
  "The references of IDENTIFIER, through the code graph."
  (let* ((root (fathom--root))
         (result (fathom-request :fathom/references (fathom--xref-params identifier) root)))
    (mapcar (lambda (reference)
              (fathom--xref root (plist-get reference :path) (plist-get reference :range)
                            (plist-get reference :text)))
            (plist-get result :references))))

(cl-defmethod xref-backend-identifier-completion-table ((_backend (eql fathom)))
  "No completion of names yet."
  nil)

(provide 'fathom)
;;; fathom.el ends here
