// A command-line transcriber in the shape of those written for Apple's SFSpeechRecognizer: top-level code, written
// for `import Speech` with only the import changed. Not part of OpenSpeech: the legacy API's tests build and run it.
//
//   legacy-cli runloop FILE      results on the main queue; the main thread runs its run loop
//   legacy-cli semaphore FILE    results on a queue of its own; the main thread waits on a semaphore
//   legacy-cli poll FILE         the main thread runs its run loop in slices until a flag is set
//   legacy-cli dispatch FILE     results on the main queue; the main thread calls dispatchMain()
//   legacy-cli exit-early FILE   prints the first partial result and exits at once, the recognition still running
import OpenSpeech

let arguments = CommandLine.arguments
guard arguments.count == 3, ["runloop", "semaphore", "poll", "dispatch", "exit-early"].contains(arguments[1]) else {
    fputs("usage: legacy-cli runloop|semaphore|poll|dispatch|exit-early FILE\n", stderr)
    exit(2)
}
let mode = arguments[1]
let url = URL(fileURLWithPath: arguments[2])

guard SFSpeechRecognizer.authorizationStatus() == .authorized else {
    fputs("speech recognition is not authorized\n", stderr)
    exit(1)
}
guard let recognizer = SFSpeechRecognizer(locale: Locale(identifier: "en-US")), recognizer.isAvailable else {
    fputs("speech recognition is not available for en-US\n", stderr)
    exit(1)
}

let request = SFSpeechURLRecognitionRequest(url: url)
request.shouldReportPartialResults = mode == "exit-early"
request.addsPunctuation = true

var transcript: String?
var failure: Error?
var done = false

func handle(_ result: SFSpeechRecognitionResult?, _ error: Error?) {
    if let error {
        failure = error
        done = true
    } else if let result, result.isFinal {
        transcript = result.bestTranscription.formattedString
        done = true
    }
}

func report() -> Never {
    if let transcript {
        print(transcript)
        exit(0)
    }
    fputs("error: \(failure?.localizedDescription ?? "no result")\n", stderr)
    exit(1)
}

switch mode {
case "runloop":
    recognizer.recognitionTask(with: request) { result, error in
        handle(result, error)
        if done { report() }
    }
    RunLoop.main.run()
case "semaphore":
    recognizer.queue = OperationQueue()
    let semaphore = DispatchSemaphore(value: 0)
    recognizer.recognitionTask(with: request) { result, error in
        handle(result, error)
        if done { semaphore.signal() }
    }
    semaphore.wait()
    report()
case "poll":
    let task = recognizer.recognitionTask(with: request) { result, error in handle(result, error) }
    while !done {
        _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
    }
    precondition(task.state == .completed)
    report()
case "exit-early":
    recognizer.recognitionTask(with: request) { result, error in
        if let result {
            print(result.bestTranscription.formattedString)
            exit(0)
        }
        handle(result, error)
        if done { report() }
    }
    RunLoop.main.run()
default:
    recognizer.recognitionTask(with: request) { result, error in
        handle(result, error)
        if done { report() }
    }
    dispatchMain()
}
