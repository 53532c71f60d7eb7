/// Word-level edit distance: the substitutions, insertions and deletions that turn `heard`
/// into `said` (the numerator of a word error rate).
public func wordErrors(_ heard: [String], _ said: [String]) -> Int {
    var row = Array(0...said.count)
    for i in heard.indices {
        var next = [i + 1]
        for j in said.indices { next.append(min(row[j + 1] + 1, next[j] + 1, row[j] + (heard[i] == said[j] ? 0 : 1))) }
        row = next
    }
    return row[said.count]
}
