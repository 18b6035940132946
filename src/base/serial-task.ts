// A task that runs one at a time: asked again while it runs, it runs exactly once more after
// (asks coalesce). What the indexes' saves need: a change during a save makes another follow,
// never two writers at once. The task reports its own failures (it must not reject).
export class SerialTask {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly task: () => Promise<void>) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Starts the task, or (while it runs) asks for one more run after it; answers the run under way. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.task().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.run();
      }
    });
    return this.running;
  }

  /** Waits until no run is under way or asked for. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
