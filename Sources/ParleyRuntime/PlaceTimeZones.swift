import Foundation

/// The time zone of a place a question names: a major city of the world (a table kept here),
/// a country that keeps one time zone, a city the time zone database is named after
/// ("Lisbon" for `Europe/Lisbon`), an IANA time zone identifier in any case ("europe/paris"), a
/// common abbreviation ("PST", "CET", "Eastern time") or an offset from UTC ("UTC+5:30").
///
/// Nothing is guessed: a place it does not know, or a country that spans several time zones,
/// is an ``Answer/unknown`` or ``Answer/ambiguous(name:)`` answer that says so.
public enum PlaceTimeZones {
    /// What is known of a place's time.
    public enum Answer: Sendable, Equatable {
        /// The place's time zone, and the name to say it by ("Tokyo", "Europe/Paris", "PST").
        case zone(name: String, TimeZone)
        /// A country or region with several time zones ("the United States"): a city there is
        /// needed.
        case ambiguous(name: String)
        /// No time zone is known for the place.
        case unknown
    }

    /// What is known of `place`'s time zone (see ``PlaceTimeZones``).
    public static func answer(for place: String) -> Answer {
        let trimmed = place.trimmingCharacters(in: .whitespacesAndNewlines.union(.init(charactersIn: ".?!,;:\"'“”‘’")))
        guard !trimmed.isEmpty else { return .unknown }
        // "Paris, France": the whole, then the city alone.
        var candidates = [trimmed]
        if let comma = trimmed.firstIndex(of: ",") {
            candidates.append(String(trimmed[..<comma]).trimmingCharacters(in: .whitespaces))
        }
        for candidate in candidates {
            if let found = lookUp(candidate) { return found }
        }
        return .unknown
    }

    /// The time zone of `place`, or `nil` when it is unknown or spans several.
    public static func zone(for place: String) -> TimeZone? {
        if case .zone(_, let zone) = answer(for: place) { return zone }
        return nil
    }

    private static func lookUp(_ text: String) -> Answer? {
        let key = normalized(text)
        guard !key.isEmpty else { return nil }
        if let place = places[key], let zone = TimeZone(identifier: place.identifier) { return .zone(name: place.name, zone) }
        if let name = severalZones[key] { return .ambiguous(name: name) }
        if let identifier = abbreviations[key], let zone = TimeZone(identifier: identifier) {
            return .zone(name: key.count <= 5 ? key.uppercased() : text, zone)
        }
        if let zone = offsetZone(key) { return .zone(name: text.uppercased(), zone) }
        // The time zone database's own names: a whole identifier in another case, or the city
        // it is named after ("kolkata" for Asia/Kolkata).
        let database = databaseNames
        if let identifier = database.identifiers[key] ?? database.cities[key], let zone = TimeZone(identifier: identifier) {
            return .zone(name: key.contains("/") ? identifier : text, zone)
        }
        return nil
    }

    /// Lower case, without accents, dots or apostrophes, single spaces, without a leading "the".
    static func normalized(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            .filter { !".'’".contains($0) }
        var words = folded.split(whereSeparator: { $0.isWhitespace || $0 == "_" }).map(String.init)
        if words.first == "the" { words.removeFirst() }
        return words.joined(separator: " ")
    }

    /// "utc+2", "gmt-05:00", "utc + 5:30", "utc", "gmt".
    private static func offsetZone(_ key: String) -> TimeZone? {
        let compact = key.replacingOccurrences(of: " ", with: "")
        guard compact.hasPrefix("utc") || compact.hasPrefix("gmt") else { return nil }
        let rest = compact.dropFirst(3)
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let parts = rest.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let hours = Int(parts[0]), (0...14).contains(hours) else { return nil }
        let minutes = parts.count == 2 ? Int(parts[1]) : 0
        guard let minutes, [0, 30, 45].contains(minutes) else { return nil }
        let seconds = (hours * 3_600 + minutes * 60) * (sign == "-" ? -1 : 1)
        return TimeZone(secondsFromGMT: seconds)
    }

    /// The database's identifiers by their normalized selves and by their cities (the last part,
    /// "new york" for America/New_York); a city named by two identifiers is left out.
    private static let databaseNames: (identifiers: [String: String], cities: [String: String]) = {
        var identifiers: [String: String] = [:]
        var cities: [String: String] = [:]
        var repeated = Set<String>()
        for identifier in TimeZone.knownTimeZoneIdentifiers {
            identifiers[normalized(identifier)] = identifier
            guard identifier.contains("/"), let last = identifier.split(separator: "/").last else { continue }
            let city = normalized(String(last))
            if cities[city] != nil { repeated.insert(city) } else { cities[city] = identifier }
        }
        for city in repeated { cities[city] = nil }
        return (identifiers, cities)
    }()

    /// Major cities and single-zone countries (normalized name → the name to say, identifier).
    private static let places: [String: (name: String, identifier: String)] = {
        var table: [String: (name: String, identifier: String)] = [:]
        for (identifier, names) in placeList {
            for name in names { table[normalized(name)] = (name, identifier) }
        }
        return table
    }()

    /// Identifiers and the places that keep them (cities first, then countries).
    private static let placeList: [(String, [String])] = [
        // North America
        (
            "America/New_York",
            [
                "New York", "New York City", "NYC", "Manhattan", "Brooklyn", "Boston", "Washington DC", "Washington D.C.",
                "Philadelphia", "Atlanta", "Miami", "Orlando", "Detroit", "Pittsburgh", "Baltimore",
                "Charlotte",
            ]
        ),
        ("America/Toronto", ["Toronto", "Ottawa", "Montreal", "Quebec", "Quebec City"]),
        (
            "America/Chicago",
            [
                "Chicago", "Houston", "Dallas", "Austin", "San Antonio", "New Orleans", "Minneapolis", "St. Louis",
                "Saint Louis", "Kansas City", "Nashville", "Milwaukee",
            ]
        ),
        ("America/Winnipeg", ["Winnipeg"]),
        ("America/Denver", ["Denver", "Salt Lake City", "Albuquerque", "Boulder"]),
        ("America/Edmonton", ["Calgary", "Edmonton"]),
        ("America/Phoenix", ["Phoenix", "Tucson", "Arizona"]),
        (
            "America/Los_Angeles",
            [
                "Los Angeles", "LA", "San Francisco", "San Diego", "San Jose", "Seattle", "Portland", "Las Vegas",
                "Sacramento", "Oakland", "Silicon Valley", "California",
            ]
        ),
        ("America/Vancouver", ["Vancouver"]),
        ("America/Anchorage", ["Anchorage", "Alaska"]),
        ("Pacific/Honolulu", ["Honolulu", "Hawaii"]),
        ("America/Mexico_City", ["Mexico City", "Guadalajara", "Monterrey"]),
        ("America/Havana", ["Havana", "Cuba"]),
        ("America/Halifax", ["Halifax"]),
        ("America/St_Johns", ["St. John's", "Newfoundland"]),
        // South and Central America
        ("America/Bogota", ["Bogota", "Colombia"]),
        ("America/Lima", ["Lima", "Peru"]),
        ("America/Caracas", ["Caracas", "Venezuela"]),
        ("America/Santiago", ["Santiago", "Chile"]),
        ("America/Argentina/Buenos_Aires", ["Buenos Aires", "Argentina"]),
        ("America/Montevideo", ["Montevideo", "Uruguay"]),
        ("America/Sao_Paulo", ["Sao Paulo", "Rio de Janeiro", "Rio", "Brasilia"]),
        ("America/Panama", ["Panama", "Panama City"]),
        ("America/Costa_Rica", ["San Jose, Costa Rica", "Costa Rica"]),
        // Europe
        (
            "Europe/London",
            [
                "London", "Manchester", "Birmingham", "Liverpool", "Edinburgh", "Glasgow", "Cardiff", "Belfast",
                "United Kingdom", "UK", "Britain", "Great Britain", "England", "Scotland", "Wales",
            ]
        ),
        ("Europe/Dublin", ["Dublin", "Ireland"]),
        ("Europe/Lisbon", ["Lisbon", "Porto", "Portugal"]),
        ("Europe/Madrid", ["Madrid", "Barcelona", "Valencia", "Seville", "Spain"]),
        ("Europe/Paris", ["Paris", "Lyon", "Marseille", "Nice", "Toulouse", "France"]),
        ("Europe/Brussels", ["Brussels", "Antwerp", "Belgium"]),
        ("Europe/Amsterdam", ["Amsterdam", "Rotterdam", "The Hague", "Netherlands", "Holland"]),
        ("Europe/Luxembourg", ["Luxembourg"]),
        ("Europe/Berlin", ["Berlin", "Munich", "Hamburg", "Frankfurt", "Cologne", "Stuttgart", "Dusseldorf", "Germany"]),
        ("Europe/Zurich", ["Zurich", "Geneva", "Basel", "Bern", "Switzerland"]),
        ("Europe/Vienna", ["Vienna", "Salzburg", "Austria"]),
        ("Europe/Rome", ["Rome", "Milan", "Naples", "Florence", "Venice", "Turin", "Italy"]),
        ("Europe/Copenhagen", ["Copenhagen", "Denmark"]),
        ("Europe/Oslo", ["Oslo", "Bergen", "Norway"]),
        ("Europe/Stockholm", ["Stockholm", "Gothenburg", "Sweden"]),
        ("Europe/Helsinki", ["Helsinki", "Finland"]),
        ("Europe/Warsaw", ["Warsaw", "Krakow", "Poland"]),
        ("Europe/Prague", ["Prague", "Czech Republic", "Czechia"]),
        ("Europe/Budapest", ["Budapest", "Hungary"]),
        ("Europe/Athens", ["Athens", "Greece"]),
        ("Europe/Bucharest", ["Bucharest", "Romania"]),
        ("Europe/Sofia", ["Sofia", "Bulgaria"]),
        ("Europe/Belgrade", ["Belgrade", "Serbia"]),
        ("Europe/Zagreb", ["Zagreb", "Croatia"]),
        ("Europe/Kyiv", ["Kyiv", "Kiev", "Ukraine"]),
        ("Europe/Istanbul", ["Istanbul", "Ankara", "Turkey", "Turkiye"]),
        ("Europe/Moscow", ["Moscow", "Saint Petersburg", "St. Petersburg"]),
        ("Atlantic/Reykjavik", ["Reykjavik", "Iceland"]),
        // Africa and the Middle East
        ("Africa/Cairo", ["Cairo", "Alexandria", "Egypt"]),
        ("Africa/Casablanca", ["Casablanca", "Rabat", "Marrakesh", "Morocco"]),
        ("Africa/Lagos", ["Lagos", "Abuja", "Nigeria"]),
        ("Africa/Accra", ["Accra", "Ghana"]),
        ("Africa/Nairobi", ["Nairobi", "Kenya"]),
        ("Africa/Addis_Ababa", ["Addis Ababa", "Ethiopia"]),
        ("Africa/Johannesburg", ["Johannesburg", "Cape Town", "Pretoria", "Durban", "South Africa"]),
        ("Asia/Jerusalem", ["Jerusalem", "Tel Aviv", "Israel"]),
        ("Asia/Beirut", ["Beirut", "Lebanon"]),
        ("Asia/Riyadh", ["Riyadh", "Jeddah", "Mecca", "Saudi Arabia"]),
        ("Asia/Dubai", ["Dubai", "Abu Dhabi", "United Arab Emirates", "UAE"]),
        ("Asia/Qatar", ["Doha", "Qatar"]),
        ("Asia/Tehran", ["Tehran", "Iran"]),
        // Asia and the Pacific
        ("Asia/Karachi", ["Karachi", "Lahore", "Islamabad", "Pakistan"]),
        (
            "Asia/Kolkata",
            [
                "Mumbai", "Bombay", "Delhi", "New Delhi", "Bangalore", "Bengaluru", "Chennai", "Kolkata", "Calcutta",
                "Hyderabad", "Pune", "India",
            ]
        ),
        ("Asia/Kathmandu", ["Kathmandu", "Nepal"]),
        ("Asia/Dhaka", ["Dhaka", "Bangladesh"]),
        ("Asia/Bangkok", ["Bangkok", "Thailand"]),
        ("Asia/Ho_Chi_Minh", ["Ho Chi Minh City", "Saigon", "Hanoi", "Vietnam"]),
        ("Asia/Singapore", ["Singapore"]),
        ("Asia/Kuala_Lumpur", ["Kuala Lumpur", "Malaysia"]),
        ("Asia/Jakarta", ["Jakarta"]),
        ("Asia/Manila", ["Manila", "Philippines"]),
        ("Asia/Hong_Kong", ["Hong Kong"]),
        ("Asia/Shanghai", ["Beijing", "Shanghai", "Shenzhen", "Guangzhou", "Chengdu", "China"]),
        ("Asia/Taipei", ["Taipei", "Taiwan"]),
        ("Asia/Seoul", ["Seoul", "Busan", "South Korea", "Korea"]),
        ("Asia/Tokyo", ["Tokyo", "Osaka", "Kyoto", "Yokohama", "Sapporo", "Japan"]),
        ("Australia/Perth", ["Perth"]),
        ("Australia/Adelaide", ["Adelaide"]),
        ("Australia/Darwin", ["Darwin"]),
        ("Australia/Brisbane", ["Brisbane", "Queensland"]),
        ("Australia/Sydney", ["Sydney", "Canberra"]),
        ("Australia/Melbourne", ["Melbourne"]),
        ("Pacific/Auckland", ["Auckland", "Wellington", "Christchurch", "New Zealand"]),
    ]

    /// Countries and regions with several time zones (normalized name → the name to say).
    private static let severalZones: [String: String] = {
        var table: [String: String] = [:]
        for name in [
            "the United States", "the USA", "the US", "America", "Canada", "Mexico", "Brazil", "Russia", "Australia",
            "Indonesia", "Mongolia", "Europe", "Asia", "Africa",
        ] {
            table[normalized(name)] = name
        }
        table["usa"] = "the USA"
        table["us"] = "the US"
        table["united states of america"] = "the United States"
        return table
    }()

    /// Common abbreviations and names of time zones (normalized → identifier). Summer and winter
    /// names alike mean the place's time now (someone who says "EST" in July means New York's).
    private static let abbreviations: [String: String] = [
        "utc": "UTC", "gmt": "GMT", "zulu": "UTC", "coordinated universal time": "UTC",
        "est": "America/New_York", "edt": "America/New_York", "eastern time": "America/New_York", "eastern standard time": "America/New_York",
        "cst": "America/Chicago", "cdt": "America/Chicago", "central time": "America/Chicago",
        "central standard time": "America/Chicago",
        "mst": "America/Denver", "mdt": "America/Denver", "mountain time": "America/Denver",
        "pst": "America/Los_Angeles", "pdt": "America/Los_Angeles", "pacific time": "America/Los_Angeles", "pacific standard time": "America/Los_Angeles",
        "akst": "America/Anchorage", "akdt": "America/Anchorage", "hst": "Pacific/Honolulu",
        "ast": "America/Halifax", "atlantic time": "America/Halifax", "nst": "America/St_Johns",
        "bst": "Europe/London", "british time": "Europe/London", "uk time": "Europe/London",
        "wet": "Europe/Lisbon",
        "cet": "Europe/Paris", "cest": "Europe/Paris", "central european time": "Europe/Paris",
        "eet": "Europe/Athens", "eest": "Europe/Athens", "eastern european time": "Europe/Athens",
        "msk": "Europe/Moscow", "ist": "Asia/Kolkata", "indian standard time": "Asia/Kolkata", "pkt": "Asia/Karachi",
        "gst": "Asia/Dubai", "ict": "Asia/Bangkok", "wib": "Asia/Jakarta", "sgt": "Asia/Singapore", "hkt": "Asia/Hong_Kong",
        "china standard time": "Asia/Shanghai", "jst": "Asia/Tokyo", "japan time": "Asia/Tokyo", "kst": "Asia/Seoul",
        "awst": "Australia/Perth", "acst": "Australia/Adelaide", "acdt": "Australia/Adelaide",
        "aest": "Australia/Sydney", "aedt": "Australia/Sydney", "nzst": "Pacific/Auckland", "nzdt": "Pacific/Auckland",
        "sast": "Africa/Johannesburg", "eat": "Africa/Nairobi", "wat": "Africa/Lagos", "cat": "Africa/Maputo",
        "brt": "America/Sao_Paulo", "art": "America/Argentina/Buenos_Aires",
    ]
}
