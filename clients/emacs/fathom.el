;;; fathom.el --- Client for the Fathom code-intelligence daemon  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, languages, matching
;; URL: clients/emacs in the Fathom repository

;;; Commentary:

;; Emacs as a client of the Fathom daemon, on the built-in jsonrpc.el rather than eglot, so it
;; runs beside whatever language server the user has.  By default it joins the user's one daemon
;; (`fathom attach', shared with the CLI, agents and other editors); one connection per
;; workspace root.  `fathom-mode' (or `global-fathom-mode') sends a buffer's text to the daemon
;; when it is opened and after changes (debounced), so searches see unsaved text; the pending
;; text is always sent before a request.
;;
;; Commands never wait for the daemon: they send the request and return, so Emacs keeps taking
;; keys while a first index of a large tree runs (minutes, on the Linux kernel).  The daemon's
;; progress shows in the mode line (and the echo area, `fathom-echo-progress'); the answer fills
;; its buffer when it arrives; a new search cancels the one still running (`fathom-cancel'
;; cancels by hand).  Commands:
;;
;;   `fathom-grep'               regex search, results in a grep-mode buffer
;;   `fathom-code-search'        a question in words (ranked whole chunks), an identifier
;;                               (definitions, then uses), a regex or a fragment of code
;;   `fathom-structural-search'  code with $X metavariables, in the buffer's language
;;   `fathom-references'         references of the symbol at point, in an xref buffer
;;   `fathom-status'             the workspace's files and indexes
;;   `fathom-cancel'             cancel what still waits for an answer
;;
;; and an xref backend (`fathom-xref-backend') for definitions and references through the code
;; graph: xref asks for its answer at once, so `M-.' and `M-?' wait for it (progress in the mode
;; line), and any key cancels the wait.  Nothing here writes a file.

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

(defcustom fathom-command '("fathom" "attach")
  "The command that runs the daemon, speaking LSP-framed JSON-RPC on stdio.
The default joins the user's one daemon on its socket (started when none runs);
\='(\"fathom\" \"serve\" \"--stdio\") runs a private daemon per Emacs."
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
  "Seconds `M-.' and `M-?' wait for the daemon (xref needs its answer at once).
Commands never wait: their answer shows when it arrives."
  :type 'integer
  :group 'fathom)

(defcustom fathom-echo-progress t
  "Non-nil: while a request waits, the echo area says what the daemon is doing.
The mode line says it too, in `mode-line-misc-info'."
  :type 'boolean
  :group 'fathom)

(defvar fathom-progress-hook nil
  "Hook run when what `fathom-mode-line-string' says may have changed.")

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

(defvar fathom--inflight (make-hash-table :test #'eq)
  "Requests waiting for an answer: slot (a symbol) to (CONNECTION ID TOKEN LABEL).
Every search shares the slot `list': a new one cancels the one before it.")

(defvar fathom--progress (make-hash-table :test #'equal)
  "The daemon's $/progress by token: a plist (:title :message :percentage).")

(defvar fathom--tokens 0
  "The last workDoneToken number this Emacs sent.")

(defvar fathom--last-echo 0
  "When the echo area last showed progress (a float time).")

(defconst fathom--mode-line '(:eval (fathom-mode-line-string))
  "The `mode-line-misc-info' entry that shows what Fathom is doing.")

(defun fathom-busy-p (&optional slot)
  "Non-nil when a request waits for its answer (in SLOT, or in any slot)."
  (if slot
      (and (gethash slot fathom--inflight) t)
    (> (hash-table-count fathom--inflight) 0)))

(defun fathom-mode-line-string ()
  "What Fathom is doing, for the mode line (\"\" when nothing waits).
The daemon's progress on a waiting request, else the request itself."
  (let (shown)
    (maphash (lambda (_slot entry)
               (let ((progress (gethash (nth 2 entry) fathom--progress)))
                 (when (and (not shown) (plist-get progress :title))
                   (setq shown
                         (concat (plist-get progress :title)
                                 (let ((message (plist-get progress :message)))
                                   (if (and message (not (string-empty-p message)))
                                       (concat ": " message)
                                     ""))
                                 (let ((percentage (plist-get progress :percentage)))
                                   (if percentage (format " (%d%%)" percentage) "")))))))
             fathom--inflight)
    (unless shown
      (maphash (lambda (_slot entry) (unless shown (setq shown (concat (nth 3 entry) "…"))))
               fathom--inflight))
    (if shown (concat " fathom: " shown) "")))

(defun fathom--changed ()
  "Show what Fathom is doing: mode line, `fathom-progress-hook', echo area."
  (force-mode-line-update t)
  (run-hooks 'fathom-progress-hook)
  (when (and fathom-echo-progress (fathom-busy-p) (not (active-minibuffer-window))
             (> (- (float-time) fathom--last-echo) 0.1))
    (setq fathom--last-echo (float-time))
    (let ((message-log-max nil))
      (message "%s" (string-trim (fathom-mode-line-string))))))

(defun fathom--notification (_connection method params)
  "Handle a notification from the daemon: METHOD with PARAMS."
  (when (eq method '$/progress)
    (let ((token (plist-get params :token))
          (value (plist-get params :value)))
      (pcase (plist-get value :kind)
        ("begin" (puthash token (list :title (plist-get value :title)
                                      :message (plist-get value :message)
                                      :percentage (plist-get value :percentage))
                          fathom--progress))
        ("report" (let ((old (gethash token fathom--progress)))
                    (puthash token (list :title (plist-get old :title)
                                         :message (or (plist-get value :message) (plist-get old :message))
                                         :percentage (or (plist-get value :percentage)
                                                         (plist-get old :percentage)))
                             fathom--progress)))
        ("end" (remhash token fathom--progress)))
      (fathom--changed))))

(defun fathom--connection-closed (connection)
  "Tell of the requests CONNECTION will never answer, and forget them."
  (let (lost)
    (maphash (lambda (slot entry) (when (eq (car entry) connection) (push (cons slot entry) lost)))
             fathom--inflight)
    (dolist (item lost)
      (remhash (car item) fathom--inflight)
      (remhash (nth 3 item) fathom--progress)
      (message "fathom: the daemon connection closed before %s answered" (nth 4 item)))
    (fathom--changed)))

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
                                 :notification-dispatcher #'fathom--notification
                                 :on-shutdown #'fathom--connection-closed)))
        ;; Not awaited: the daemon answers its requests in order, so what follows is sent at
        ;; once and the editor never waits for a daemon to start.
        (jsonrpc-async-request new :initialize
                               (list :processId (emacs-pid)
                                     :rootUri (fathom--uri root)
                                     :capabilities (make-hash-table))
                               :success-fn #'ignore
                               :error-fn (lambda (error)
                                           (message "fathom: the daemon refused to start: %s"
                                                    (plist-get error :message)))
                               :timeout nil)
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
        (add-hook 'xref-backend-functions #'fathom-xref-backend nil t)
        (unless (member fathom--mode-line mode-line-misc-info)
          (push fathom--mode-line mode-line-misc-info)))
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

(defun fathom--token ()
  "A new workDoneToken: the daemon reports a request's progress under it."
  (format "fathom.el/%d/%d" (emacs-pid) (cl-incf fathom--tokens)))

(defun fathom-cancel (&optional slot)
  "Cancel the request waiting in SLOT (every request when nil).
Its answer, if it still comes, is dropped; the daemon is sent $/cancelRequest."
  (interactive)
  (let (cancelled)
    (maphash (lambda (name entry) (when (or (null slot) (eq name slot)) (push (cons name entry) cancelled)))
             fathom--inflight)
    (dolist (item cancelled)
      (remhash (car item) fathom--inflight)
      (remhash (nth 3 item) fathom--progress)
      (when (nth 2 item)
        (ignore-errors (jsonrpc-notify (nth 1 item) :$/cancelRequest (list :id (nth 2 item))))))
    (fathom--changed)))

(cl-defun fathom-request-async (method params on-result &key slot label root)
  "Send METHOD with PARAMS (a plist) to the daemon of ROOT and return at once.
ON-RESULT gets the result when it arrives, unless a newer request in SLOT
(default METHOD) cancelled it first; an error is told in the echo area.
LABEL is what the mode line says meanwhile.  Pending buffer text is sent
first; ROOT defaults to the current workspace."
  (let* ((root (or root (fathom--root)))
         (slot (or slot method))
         (connection (progn (fathom--flush root) (fathom--connection root)))
         (token (fathom--token))
         (entry (list connection nil token (or label (symbol-name method))))
         (settle (lambda ()
                   (when (eq (gethash slot fathom--inflight) entry)
                     (remhash slot fathom--inflight)
                     (remhash token fathom--progress)
                     (fathom--changed)
                     (when (and fathom-echo-progress (not (fathom-busy-p)))
                       (let ((message-log-max nil)) (message nil)))
                     t))))
    (fathom-cancel slot)
    (setf (nth 1 entry)
          (car (jsonrpc-async-request
                connection method (append (list :root root :workDoneToken token) params)
                :success-fn (lambda (result) (when (funcall settle) (funcall on-result result)))
                :error-fn (lambda (error)
                            (when (funcall settle)
                              (message "fathom: %s" (or (plist-get error :message) error))))
                :timeout nil)))
    (puthash slot entry fathom--inflight)
    (fathom--changed)
    (nth 1 entry)))

(defun fathom-wait (&optional seconds)
  "Wait up to SECONDS (default `fathom-timeout') until no request waits.
Non-nil when none does.  For scripts and tests: commands never wait."
  (let ((deadline (+ (float-time) (or seconds fathom-timeout))))
    (while (and (fathom-busy-p) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (not (fathom-busy-p))))

(defun fathom-request (method params &optional root)
  "Send METHOD with PARAMS (a plist) to the daemon of ROOT; wait for the result.
For xref, which must answer at once: the daemon's progress shows in the mode
line meanwhile, and any key cancels the wait.  ROOT defaults to the current
workspace."
  (let* ((root (or root (fathom--root)))
         (connection (progn (fathom--flush root) (fathom--connection root)))
         (token (fathom--token))
         (slot (intern (concat "wait:" token))))
    (puthash slot (list connection nil token (symbol-name method)) fathom--inflight)
    (unwind-protect
        (let ((result (jsonrpc-request connection method
                                       (append (list :root root :workDoneToken token) params)
                                       :timeout fathom-timeout
                                       :cancel-on-input t
                                       :cancel-on-input-retval 'fathom--cancelled)))
          (when (eq result 'fathom--cancelled) (user-error "Fathom: %s cancelled" method))
          result)
      (remhash slot fathom--inflight)
      (remhash token fathom--progress)
      (fathom--changed))))

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

(defun fathom--building-note (result)
  "Say which indexes RESULT was answered from only part of.
For example \" (still building: ranking 12000/78491 files)\"."
  (let ((building (plist-get result :building)))
    (if (> (length building) 0)
        (format " (still building: %s)"
                (mapconcat (lambda (entry)
                             (format "%s %d/%d files" (plist-get entry :index)
                                     (plist-get entry :done) (plist-get entry :total)))
                           building ", "))
      "")))

(defun fathom--grep (pattern extra title)
  "Search PATTERN with EXTRA params; show the matches under TITLE once they come."
  (let ((root (fathom--root)))
    (fathom-request-async
     :fathom/grep (append (list :pattern pattern :maxResults fathom-max-results) extra)
     (lambda (result)
       (fathom--show-matches
        title root
        (mapcar (lambda (match)
                  (format "%s:%d:%d:%s" (plist-get match :path) (plist-get match :line)
                          (plist-get match :column) (plist-get match :text)))
                (plist-get result :matches)))
       (when (eq (plist-get result :truncated) t)
         (message "fathom: the first %d matches (`fathom-max-results')"
                  (length (plist-get result :matches)))))
     :slot 'list :label (string-remove-prefix "fathom " title) :root root)))

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
  (let ((root (fathom--root)))
    (fathom-request-async
     :fathom/codeSearch (list :query query :maxResults fathom-max-results :maxInlineBytes 0)
     (lambda (result)
       (fathom--show-matches
        (format "fathom search %s (%s)%s" query (plist-get result :route) (fathom--building-note result))
        root
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
                (plist-get result :hits))))
     :slot 'list :label (format "search %s" query) :root root)))

;;;###autoload
(defun fathom-structural-search (pattern &optional language)
  "Search for code shaped like PATTERN ($X, $$$X metavariables) in LANGUAGE.
LANGUAGE defaults to the current file's extension."
  (interactive (list (read-string "Fathom structural search: ")))
  (let* ((language (or language (and buffer-file-name (file-name-extension buffer-file-name))
                       (user-error "No language: run it from a file of that language")))
         (root (fathom--root))
         (title (format "fathom structural search %s" pattern)))
    (fathom-request-async
     :fathom/structuralSearch (list :pattern pattern :language language :maxResults fathom-max-results)
     (lambda (result)
       (fathom--show-matches
        title root
        (mapcar (lambda (match)
                  (let ((start (plist-get (plist-get match :range) :start)))
                    (format "%s:%d:%d:%s" (plist-get match :path) (plist-get start :line)
                            (plist-get start :column) (plist-get match :lineText))))
                (plist-get result :matches))))
     :slot 'list :label title :root root)))

;;;###autoload
(defun fathom-status (&optional on-result)
  "Show the workspace's file set and index states when the daemon answers.
ON-RESULT, when given, gets the answer too."
  (interactive)
  (fathom-request-async
   :fathom/status nil
   (lambda (result)
     (message "%s" (mapconcat (lambda (workspace)
                                (format "%s: %s, %s files" (plist-get workspace :root)
                                        (plist-get workspace :state) (plist-get workspace :files)))
                              (plist-get result :workspaces) "\n"))
     (when on-result (funcall on-result result)))
   :label "status"))

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
    (fathom--reference-xrefs root result)))

(defun fathom--reference-xrefs (root result)
  "The xref items of RESULT's references, paths relative to ROOT."
  (mapcar (lambda (reference)
            (fathom--xref root (plist-get reference :path) (plist-get reference :range)
                          (plist-get reference :text)))
          (plist-get result :references)))

;;;###autoload
(defun fathom-references ()
  "Show the references of the symbol at point in an xref buffer, when they come.
Unlike `M-?', Emacs does not wait for them: a first use builds the code graph."
  (interactive)
  (let ((root (fathom--root))
        (params (list :path buffer-file-name :position (fathom--position))))
    (fathom-request-async
     :fathom/references params
     (lambda (result)
       (let ((items (fathom--reference-xrefs root result)))
         (if items
             (funcall xref-show-xrefs-function (lambda () items)
                      `((window . ,(selected-window)) (display-action)))
           (message "fathom: no references%s" (fathom--building-note result)))))
     :slot 'list :label "references" :root root)))

(cl-defmethod xref-backend-identifier-completion-table ((_backend (eql fathom)))
  "No completion of names yet."
  nil)

(provide 'fathom)
;;; fathom.el ends here
