#if canImport(ParleyApple) && canImport(AVFoundation)
import ParleyApple
#endif
import ParleyAppleSupport

// ParleyRuntime's only Apple branch. It refers to no other declaration of this module, so that
// scripts/check-apple type-checks it on its own against AppleStubs (the rest of ParleyRuntime
// needs packages that check does not build, and has no Apple branch). ParleyApple is a
// dependency on Apple platforms only (Package.swift), and is empty wherever AVFoundation is not.

/// The platform's own engines, which ``ProviderCatalog/standard`` places among the on-device
/// providers: Apple's on Apple platforms (``ParleyApple``'s `AppleProviders`), none elsewhere.
let platformProviders: [PlatformProvider] = {
    #if canImport(ParleyApple) && canImport(AVFoundation)
    return AppleProviders.standard
    #else
    return []
    #endif
}()
